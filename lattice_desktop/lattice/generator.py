"""Random Lattice scenarios (§6 text), deterministic from a seed, any size up to 4096².

`generate` lays out factory features on a free grid — belt lines with turns from
sources to sinks or dead ends, side-loading merges, rings (one that fills and then
rotates, one a feeder jams), chains of assemblers with multi-input recipes, walls —
plus optional noise (single random cells, which exercise the odd corners of the rules).
`stress_scenarios` describes the fuel benchmark's stress cases.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

DIRS = "NESW"
ARROWS = "^>v<"
_DELTA = ((0, -1), (1, 0), (0, 1), (-1, 0))
_PERIODS = (1, 1, 1, 2, 2, 3, 4, 5, 7, 11)
MAX_SIDE = 4096


def _left(d: int) -> int:
    return (d + 3) % 4


def _right(d: int) -> int:
    return (d + 1) % 4


@dataclass
class _Layout:
    """A scenario being built: the grid plus the source, assembler and recipe lines."""

    width: int
    height: int
    rng: random.Random
    grid: list[bytearray] = field(init=False)
    sources: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)
    assemblers: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    recipes: dict[int, tuple[int, int, list[tuple[int, int]]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.grid = [bytearray(b"." * self.width) for _ in range(self.height)]

    def free(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height and self.grid[y][x] == ord(".")

    def random_free(self) -> tuple[int, int] | None:
        for _ in range(8):
            x, y = self.rng.randrange(self.width), self.rng.randrange(self.height)
            if self.free(x, y):
                return x, y
        return None

    def belt(self, x: int, y: int, d: int) -> None:
        self.grid[y][x] = ord(ARROWS[d])

    def source(self, x: int, y: int, d: int, *, item: int | None = None) -> None:
        self.grid[y][x] = ord("S")
        item = item if item is not None else self.rng.randint(1, 8)
        self.sources[(x, y)] = (d, item, self.rng.choice(_PERIODS))

    def assembler(self, x: int, y: int, d: int, recipe: int) -> None:
        self.grid[y][x] = ord("A")
        self.assemblers[(x, y)] = (d, recipe)

    def recipe(self, inputs: list[tuple[int, int]], product: int) -> int:
        if len(self.recipes) >= 255:  # recipe ids are 1..255: share an existing one
            return self.rng.randint(1, 255)
        rid = len(self.recipes) + 1
        self.recipes[rid] = (product, self.rng.randint(1, 6), inputs)
        return rid

    def text(self, *, ticks: int, snapshot: int, comment: str) -> str:
        lines = [f"# {comment}", "lattice 1", f"size {self.width} {self.height}"]
        lines += [f"ticks {ticks}", f"snapshot {snapshot}"]
        for rid, (product, time, inputs) in sorted(self.recipes.items()):
            ins = " ".join(f"{k}:{n}" for k, n in inputs)
            lines.append(f"recipe {rid} {product} {time} {ins}")
        for (x, y), (d, item, period) in sorted(self.sources.items(), key=lambda s: s[0][::-1]):
            lines.append(f"source {x} {y} {DIRS[d]} {item} {period}")
        for (x, y), (d, rid) in sorted(self.assemblers.items(), key=lambda a: a[0][::-1]):
            lines.append(f"assembler {x} {y} {DIRS[d]} {rid}")
        lines.append("grid")
        lines += [row.decode() for row in self.grid]
        return "\n".join(lines) + "\n"

    # ---- building blocks ----

    def path(self, x: int, y: int, d: int, length: int, *, turns: float) -> tuple[int, int, int]:
        """Lay belts forward from (x, y) heading d; return the cell after the last belt."""
        for _ in range(length):
            if not self.free(x, y):
                break
            if self.rng.random() < turns:
                nd = self.rng.choice((_left(d), _right(d)))
                dx, dy = _DELTA[nd]
                if self.free(x + dx, y + dy):
                    d = nd
            self.belt(x, y, d)
            dx, dy = _DELTA[d]
            x, y = x + dx, y + dy
        return x, y, d

    def feeder(self, x: int, y: int, d: int, length: int, *, turns: float, item: int | None) -> bool:
        """Lay a belt path backwards from (x, y), whose last belt points d, and put a
        source at its far end. False when not even one belt fits."""
        if not self.free(x, y):
            return False
        placed = 0
        for _ in range(length):
            self.belt(x, y, d)
            placed += 1
            back = d
            if self.rng.random() < turns:
                back = self.rng.choice((_left(d), _right(d)))
            dx, dy = _DELTA[back]
            px, py = x - dx, y - dy
            if not self.free(px, py):
                break
            x, y, d = px, py, back
        else:
            dx, dy = _DELTA[d]
            x, y = x - dx, y - dy
        dx, dy = _DELTA[d]
        sx, sy = x - dx, y - dy
        if self.free(sx, sy):
            self.source(sx, sy, d, item=item)
        return placed > 0


def _line(lay: _Layout) -> None:
    """A source, a belt line with turns, then a sink, a wall or nothing."""
    start = lay.random_free()
    if start is None:
        return
    d = lay.rng.randrange(4)
    dx, dy = _DELTA[d]
    x, y = start
    if not lay.free(x + dx, y + dy):
        return
    lay.source(x, y, d)
    size = max(lay.width, lay.height)
    ex, ey, _ = lay.path(x + dx, y + dy, d, lay.rng.randint(2, max(3, size)), turns=0.15)
    if lay.free(ex, ey):
        end = lay.rng.random()
        if end < 0.6:
            lay.grid[ey][ex] = ord("K")
        elif end < 0.75:
            lay.grid[ey][ex] = ord("#")


def _merge(lay: _Layout) -> None:
    """A line with one or two side-loading feeders (left, right or both)."""
    start = lay.random_free()
    if start is None:
        return
    d = lay.rng.randrange(4)
    x, y = start
    cells: list[tuple[int, int, int]] = []
    lay.source(x, y, d)
    dx, dy = _DELTA[d]
    x, y = x + dx, y + dy
    for _ in range(lay.rng.randint(3, 12)):
        if not lay.free(x, y):
            break
        lay.belt(x, y, d)
        cells.append((x, y, d))
        x, y = x + dx, y + dy
    if lay.free(x, y) and lay.rng.random() < 0.5:
        lay.grid[y][x] = ord("K")
    if len(cells) < 2:
        return
    bx, by, bd = lay.rng.choice(cells[1:])
    sides = [_left(bd), _right(bd)]
    if lay.rng.random() < 0.5:
        sides = [lay.rng.choice(sides)]
    for side in sides:
        sx, sy = _DELTA[side]
        lay.feeder(bx + sx, by + sy, (side + 2) % 4, lay.rng.randint(1, 6), turns=0.2, item=None)


def _ring(lay: _Layout, *, jammed: bool) -> None:
    """A rectangular ring fed by a source: from the outside of a straight edge it fills
    and then rotates; into a corner from behind the feeder wins and jams it."""
    rw, rh = lay.rng.randint(2, 8), lay.rng.randint(2, 8)
    origin = lay.random_free()
    if origin is None:
        return
    x0, y0 = origin
    if not all(lay.free(x0 + i, y0 + j) for i in range(-1, rw + 1) for j in range(-1, rh + 1)):
        return
    clockwise = lay.rng.random() < 0.5
    ring: list[tuple[int, int]] = [(x0 + i, y0) for i in range(rw - 1)]
    ring += [(x0 + rw - 1, y0 + j) for j in range(rh - 1)]
    ring += [(x0 + rw - 1 - i, y0 + rh - 1) for i in range(rw - 1)]
    ring += [(x0, y0 + rh - 1 - j) for j in range(rh - 1)]
    if not clockwise:
        ring.reverse()
    dirs: list[int] = []
    for i, (x, y) in enumerate(ring):
        nx, ny = ring[(i + 1) % len(ring)]
        d = _DELTA.index((nx - x, ny - y))
        dirs.append(d)
        lay.belt(x, y, d)
    item = lay.rng.randint(1, 8)
    if jammed:
        i = lay.rng.randrange(len(ring))
        while dirs[i] == dirs[i - 1]:
            i = (i + 1) % len(ring)
        x, y = ring[i]
        d = dirs[i]
        dx, dy = _DELTA[d]
        lay.feeder(x - dx, y - dy, d, lay.rng.randint(1, 4), turns=0.0, item=item)
        return
    straight = [i for i in range(len(ring)) if dirs[i] == dirs[i - 1]]
    if not straight:
        return
    i = lay.rng.choice(straight)
    x, y = ring[i]
    d = dirs[i]
    outer = _left(d) if clockwise else _right(d)
    dx, dy = _DELTA[outer]
    lay.feeder(x + dx, y + dy, (outer + 2) % 4, lay.rng.randint(1, 4), turns=0.0, item=item)


def _factory(lay: _Layout) -> None:
    """Two assemblers: A1 (two inputs) feeds A2 (A1's product plus one more), A2 to a sink."""
    start = lay.random_free()
    if start is None:
        return
    x1, y1 = start
    d1 = lay.rng.randrange(4)
    a, b, e = lay.rng.sample(range(1, 9), 3)
    mid, top = lay.rng.randint(20, 40), lay.rng.randint(41, 60)
    r1 = lay.recipe([(a, lay.rng.randint(1, 3)), (b, lay.rng.randint(1, 2))], mid)
    r2 = lay.recipe([(mid, lay.rng.randint(1, 2)), (e, lay.rng.randint(1, 3))], top)
    lay.assembler(x1, y1, d1, r1)
    for side, item in ((_left(d1), a), (_right(d1), b), ((d1 + 2) % 4, a)):
        if side == (d1 + 2) % 4 and lay.rng.random() < 0.5:
            continue
        dx, dy = _DELTA[side]
        lay.feeder(x1 + dx, y1 + dy, (side + 2) % 4, lay.rng.randint(1, 6), turns=0.2, item=item)
    dx, dy = _DELTA[d1]
    ex, ey, ed = lay.path(x1 + dx, y1 + dy, d1, lay.rng.randint(1, 10), turns=0.2)
    if not lay.free(ex, ey):
        return
    d2 = lay.rng.choice([d for d in range(4) if d != (ed + 2) % 4])
    lay.assembler(ex, ey, d2, r2)
    free_sides = [s for s in range(4) if s not in (d2, (ed + 2) % 4)]
    side = lay.rng.choice(free_sides)
    dx, dy = _DELTA[side]
    lay.feeder(ex + dx, ey + dy, (side + 2) % 4, lay.rng.randint(1, 6), turns=0.2, item=e)
    dx, dy = _DELTA[d2]
    sx, sy, _ = lay.path(ex + dx, ey + dy, d2, lay.rng.randint(0, 6), turns=0.2)
    if lay.free(sx, sy):
        lay.grid[sy][sx] = ord("K")


def _walls(lay: _Layout) -> None:
    start = lay.random_free()
    if start is None:
        return
    x, y = start
    d = lay.rng.randrange(4)
    dx, dy = _DELTA[d]
    for _ in range(lay.rng.randint(1, 8)):
        if not lay.free(x, y):
            break
        lay.grid[y][x] = ord("#")
        x, y = x + dx, y + dy


def _noise(lay: _Layout, count: int) -> None:
    """Single random cells of every kind, facing anywhere."""
    for _ in range(count):
        cell = lay.random_free()
        if cell is None:
            continue
        x, y = cell
        d = lay.rng.randrange(4)
        roll = lay.rng.random()
        if roll < 0.55:
            lay.belt(x, y, d)
        elif roll < 0.65:
            lay.grid[y][x] = ord("#")
        elif roll < 0.75:
            lay.grid[y][x] = ord("K")
        elif roll < 0.88:
            lay.source(x, y, d)
        else:
            if not lay.recipes or lay.rng.random() < 0.3:
                n = lay.rng.randint(1, 4)
                ins = [(k, lay.rng.randint(1, 3)) for k in lay.rng.sample(range(1, 9), n)]
                lay.recipe(ins, lay.rng.randint(1, 12))
            lay.assembler(x, y, d, lay.rng.randint(1, len(lay.recipes)))


_FEATURES = {
    "lines": _line,
    "merges": _merge,
    "rings": lambda lay: _ring(lay, jammed=False),
    "jammed_rings": lambda lay: _ring(lay, jammed=True),
    "factories": _factory,
    "walls": _walls,
}
FEATURES = tuple(_FEATURES)


def generate(
    seed: int,
    *,
    width: int = 32,
    height: int = 32,
    ticks: int = 200,
    snapshot: int = 10,
    density: float = 0.5,
    noise: float = 0.0,
    features: tuple[str, ...] = FEATURES,
) -> str:
    """A valid scenario, the same for the same arguments.

    `density` scales how many features are attempted (about one per 40 cells at 1.0),
    `noise` is the fraction of cells given a random single entity afterwards.
    """
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"size {width}x{height} is outside 1..{MAX_SIDE}")
    unknown = set(features) - set(_FEATURES)
    if unknown:
        raise ValueError(f"unknown features: {sorted(unknown)}")
    rng = random.Random(seed)
    lay = _Layout(width, height, rng)
    attempts = int(width * height * density / 40) + (1 if features else 0)
    builders = [_FEATURES[name] for name in features]
    for _ in range(attempts):
        rng.choice(builders)(lay)
    _noise(lay, int(width * height * noise))
    return lay.text(ticks=ticks, snapshot=snapshot, comment=f"generated: seed {seed}")


@dataclass(frozen=True)
class StressCase:
    """One stress scenario of the fuel benchmark: square grid of lanes plus features."""

    name: str
    size: int
    ticks: int
    snapshot: int
    seed: int = 1

    def text(self) -> str:
        return stress(self.seed, size=self.size, ticks=self.ticks, snapshot=self.snapshot)


def stress_scenarios() -> list[StressCase]:
    """The stress cases, smallest first; the largest is 512² with >100k items in flight."""
    return [
        StressCase("stress-64", 64, 120, 60),
        StressCase("stress-128", 128, 160, 80),
        StressCase("stress-192", 192, 200, 100),
        StressCase("stress-256", 256, 240, 120),
        StressCase("stress-384", 384, 280, 140),
        StressCase("stress-512", 512, 300, 150),
    ]


def stress(seed: int, *, size: int, ticks: int, snapshot: int) -> str:
    """Long, mostly full belt lanes: sources feeding lanes that end in sinks (moving) or
    walls (they fill, compress and then sit idle), with merges, rings and factories
    between the lanes."""
    rng = random.Random(seed)
    lay = _Layout(size, size, rng)
    longest = max(4, ticks // 6)
    for y in range(1, size - 1, 2):
        if rng.random() < 0.25:
            continue
        x = 0
        while x < size - 4:
            end = min(size - 1, x + 1 + rng.randint(longest // 2, longest))
            dead_end = rng.random() < 0.6
            lay.source(x, y, 1, item=rng.randint(1, 8))
            period = 1 if dead_end else rng.choice((1, 1, 2))
            lay.sources[(x, y)] = (*lay.sources[(x, y)][:2], period)
            for bx in range(x + 1, end):
                lay.belt(bx, y, 1)
            lay.grid[y][end] = ord("#" if dead_end else "K")
            x = end + 1
    for _ in range(size * size // 400):
        rng.choice(list(_FEATURES.values()))(lay)
    return lay.text(ticks=ticks, snapshot=snapshot, comment=f"stress: seed {seed}, {size}x{size}")
