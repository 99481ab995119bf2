"""Random Lattice scenarios (§6 text), deterministic from a seed, any size up to 4096².

`generate` lays out factory features on a free grid — belt lines with turns from
sources to sinks or dead ends, side-loading merges, rings (one that fills and then
rotates, one that rotates until a feeder jams it), chains of assemblers with multi-input
recipes fed by sources straight into them and by lines, lines that end head-on, sinks fed
from several sides, walls — plus optional noise (single random cells, which exercise the
odd corners of the rules). Every feature chosen is laid once before the rest are picked at
random, and the features that carry items start some of their lines at a junction fed from
both sides, so each feature makes the rules it holds decisive (a slip of them changes the
state). The stress cases of the bundled case are laid out by `stress`, from these features.
"""

from __future__ import annotations

import random

from lattice_desktop.lattice.layout import _DELTA, MAX_SIDE, Layout, _left, _right

STRAY = 0.5  # crafting chains whose spare feeder carries a type the recipe does not use
DEAD_END = 0.3  # crafting chains whose second assembler's output faces a wall
EDGE_REACH = 10  # how far from the grid's east or west edge an edge line starts
FIRST_TRIES = 4  # attempts at laying each chosen feature once before the random rest
JUNCTION = 0.8  # lines, head-on lines and hub sides that start at a junction fed from both sides


def _heading(lay: Layout) -> tuple[int, int, int, int, int] | None:
    """A free cell and a random direction from it, (x, y, d, dx, dy); None: the grid is full."""
    start = lay.random_free()
    if start is None:
        return None
    d = lay.rng.randrange(4)
    return (*start, d, *_DELTA[d])


def _line(lay: Layout) -> None:
    """A source, a belt line with turns, then a sink, a wall or nothing."""
    if (at := _heading(lay)) is None or not lay.free(at[0] + at[3], at[1] + at[4]):
        return
    x, y, d, dx, dy = at
    if lay.rng.random() < JUNCTION and lay.junction(x + dx, y + dy, d):
        x, y = x + dx, y + dy
    else:
        lay.source(x, y, d)
    size = max(lay.width, lay.height)
    ex, ey, _ = lay.path(x + dx, y + dy, d, lay.rng.randint(2, max(3, size)), turns=0.15)
    if lay.free(ex, ey):
        end = lay.rng.random()
        if end < 0.6:
            lay.grid[ey][ex] = ord("K")
        elif end < 0.75:
            lay.grid[ey][ex] = ord("#")


def _merge(lay: Layout) -> None:
    """A line with one or two side-loading feeders (left, right or both)."""
    if (at := _heading(lay)) is None or not lay.free(at[0] + at[3], at[1] + at[4]):
        return
    x, y, d, dx, dy = at
    cells: list[tuple[int, int, int]] = []
    lay.source(x, y, d)
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


def _ring(lay: Layout, *, jammed: bool) -> None:
    """A rectangular ring fed by sources. Fed from the outside of straight edges by two
    item types, it fills and then rotates (visibly: the types take turns); fed into a
    corner from behind, the feeder outranks the ring's own side-load and jams it, and a
    second type fed from a straight edge makes the jam visible (a rotation would move it)."""
    rw, rh = lay.rng.randint(2 if jammed else 3, 5), lay.rng.randint(3, 5)
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
    straight = [i for i in range(len(ring)) if dirs[i] == dirs[i - 1]]
    items = lay.rng.sample(range(1, 9), 2)
    if jammed:  # the corner feeder jams the ring; a second type from a straight edge shows it
        i = lay.rng.randrange(len(ring))
        while dirs[i] == dirs[i - 1]:
            i = (i + 1) % len(ring)
        x, y = ring[i]
        d = dirs[i]
        dx, dy = _DELTA[d]
        # a slow source right behind the corner: the full ring rotates until it produces
        lay.feeder(x - dx, y - dy, d, 0, turns=0.0, item=items[0], period=lay.rng.randint(8, 40))
        straight = lay.rng.sample(straight, 1)
        items = items[1:]
    else:
        straight = lay.rng.sample(straight, 2)
    for i, item in zip(straight, items, strict=True):
        x, y = ring[i]
        outer = _left(dirs[i]) if clockwise else _right(dirs[i])
        dx, dy = _DELTA[outer]
        lay.feeder(x + dx, y + dy, (outer + 2) % 4, lay.rng.randint(1, 4), turns=0.0, item=item, period=1)


def _feed(lay: Layout, x: int, y: int, sides: list[int], items: list[int]) -> None:
    """Feeders into the machine at (x, y) from `sides`, carrying `items` in turn: the first a
    source facing straight into it, the others a source or a line."""
    for n, side in enumerate(sides):
        dx, dy = _DELTA[side]
        length = 0 if n == 0 else lay.rng.randint(0, 6)
        lay.feeder(x + dx, y + dy, (side + 2) % 4, length, turns=0.2, item=items[n % len(items)])


def _with_stray(lay: Layout, inputs: list[int], sides: int) -> list[int]:
    """The types to feed from `sides` sides: the inputs in turn (so a spare side offers the
    first input again, competing for its room), or now and then, when a side is spare, a
    type the recipe does not use (offered, refused, waiting for good)."""
    if sides > len(inputs) and lay.rng.random() < STRAY:
        return [*inputs, lay.rng.choice([k for k in range(1, 9) if k not in inputs])]
    return inputs


def _factory(lay: Layout) -> None:
    """A crafting chain: A1 (two raw inputs) hands its product to A2 (that product plus one
    more raw input) directly when they touch, or along a belt; A2's output runs to a sink."""
    if (at := _heading(lay)) is None:
        return
    x1, y1, d1, dx, dy = at
    sides = [_left(d1), _right(d1), (d1 + 2) % 4]
    if not all(lay.free(x1 + _DELTA[s][0], y1 + _DELTA[s][1]) for s in [d1, *sides]):
        return  # A1 is fed from all three other sides
    a, b, e = lay.rng.sample(range(1, 9), 3)
    r1 = lay.recipe(
        [(a, lay.rng.randint(1, 3)), (b, lay.rng.randint(1, 2))], lay.rng.randint(20, 40), pool="first"
    )
    mid, _, inputs1 = lay.recipes[r1]
    # the input with the smallest count first: the spare side offers it again, and two
    # offers then often meet a room of one
    raw1 = [k for k, _ in sorted(inputs1, key=lambda kn: kn[1])]
    lay.assembler(x1, y1, d1, r1)
    if lay.rng.random() < 0.5:  # A2 touches A1
        ex, ey, ed = x1 + dx, y1 + dy, d1
    else:
        lay.belt(x1 + dx, y1 + dy, d1)
        ex, ey, ed = lay.path(x1 + 2 * dx, y1 + 2 * dy, d1, lay.rng.randint(0, 9), turns=0.2)
    if not lay.free(ex, ey):
        _feed(lay, x1, y1, sides, raw1)
        return
    r2 = lay.recipe(
        [(mid, lay.rng.randint(1, 2)), (e, lay.rng.randint(1, 2))],
        lay.rng.randint(41, 60),
        pool="second",
        consumes=mid,
    )
    inputs2 = [k for k, _ in lay.recipes[r2][2] if k != mid]
    d2 = lay.rng.choice([d for d in range(4) if d != (ed + 2) % 4])
    lay.assembler(ex, ey, d2, r2)
    dx, dy = _DELTA[d2]
    if lay.rng.random() < DEAD_END and lay.free(ex + dx, ey + dy):  # its product waits for good
        lay.grid[ey + dy][ex + dx] = ord("#")
    else:
        sx, sy, _ = lay.path(ex + dx, ey + dy, d2, lay.rng.randint(0, 6), turns=0.2)
        if lay.free(sx, sy):
            lay.grid[sy][sx] = ord("K")
    _feed(lay, x1, y1, sides, _with_stray(lay, raw1, len(sides)))
    free_sides = [s for s in range(4) if s not in (d2, (ed + 2) % 4)]
    # a spare side offers the same input (the order offers are taken in decides) or a stray
    spare = len(free_sides) > len(inputs2)
    sides2 = lay.rng.sample(free_sides, len(inputs2) + spare)
    _feed(lay, ex, ey, sides2, _with_stray(lay, inputs2, len(sides2)))


def _intake(lay: Layout) -> None:
    """An assembler taking one type (count 1, a one-tick craft) from three sides, its output
    into a sink. Its slow feeders (period 2 to 4) together bring about what it uses, so on
    most ticks some of them offer at once with room for one: the order N, E, S, W decides
    which line moves on, and the gap it leaves runs back along that line."""
    start = lay.random_free()
    if start is None:
        return
    x, y = start
    # the outputs face N, E, S and W in turn, so every pair of sides meets somewhere
    laid = sum(1 for _, rid in lay.assemblers.values() if rid in lay.pools.get("intake", ()))
    d = laid % 4
    sides = [s for s in range(4) if s != d]
    if not all(lay.free(x + _DELTA[s][0], y + _DELTA[s][1]) for s in range(4)):
        return
    k = lay.rng.randint(1, 8)
    known = [r for r in lay.pools.get("intake", []) if lay.recipes[r][2][0][0] == k]
    if known:
        rid = known[0]
    else:
        rid = lay.recipe([(k, 1)], lay.rng.randint(61, 70), pool="intake")
        product, _, inputs = lay.recipes[rid]
        lay.recipes[rid] = (product, 1, inputs)
    lay.assembler(x, y, d, rid)
    lay.grid[y + _DELTA[d][1]][x + _DELTA[d][0]] = ord("K")
    for side in sides:
        dx, dy = _DELTA[side]
        period = lay.rng.choice((2, 3, 4))
        lay.feeder(x + dx, y + dy, (side + 2) % 4, lay.rng.randint(0, 8), turns=0.2, item=k, period=period)


def _head_on(lay: Layout) -> None:
    """A source and a short straight line that ends in a belt facing back at it: the
    head-on belt refuses every item the line offers (spec §3), so the line fills and waits."""
    if (at := _heading(lay)) is None:
        return
    x, y, d, dx, dy = at
    length = lay.rng.randint(1, 6)
    cells = [(x + i * dx, y + i * dy) for i in range(length + 2)]
    if not all(lay.free(cx, cy) for cx, cy in cells):
        return
    lay.belt(*cells[-1], (d + 2) % 4)
    for cx, cy in cells[2:-1]:
        lay.belt(cx, cy, d)
    if not (length >= 2 and lay.rng.random() < JUNCTION and lay.junction(*cells[1], d)):
        lay.source(x, y, d, period=lay.rng.choice((1, 1, 2)))  # (the junction walls this cell)
        lay.belt(*cells[1], d)


def _hub(lay: Layout) -> None:
    """A sink fed by lines from two to four sides at once (it takes every item, §4a)."""
    cell = lay.random_free()
    if cell is None:
        return
    x, y = cell
    lay.grid[y][x] = ord("K")
    sides = lay.rng.sample(range(4), lay.rng.randint(2, 4))
    for n, side in enumerate(sides):
        dx, dy = _DELTA[side]
        if n == 0 and lay.rng.random() < JUNCTION and lay.junction(x + dx, y + dy, (side + 2) % 4):
            continue
        lay.feeder(x + dx, y + dy, (side + 2) % 4, lay.rng.randint(1, 5), turns=0.2, item=None, period=1)


def _edge(lay: Layout) -> None:
    """A straight line from a source to the east or west edge, its last belt pointing off
    the grid (spec §3: it never moves its item), and a sink on the cell an engine that wraps
    such an exit to the next or previous row by flat index would hand the items to."""
    east = lay.rng.random() < 0.5
    y = lay.rng.randrange(*lay.rows)
    reach = lay.rng.randint(2, max(2, min(EDGE_REACH, lay.width - 1)))
    d, xs = (1, range(lay.width - 1 - reach, lay.width)) if east else (3, range(reach, -1, -1))
    wrapped = (0, y + 1) if east else (lay.width - 1, y - 1)
    cells = [(x, y) for x in xs]
    if len(cells) < 3 or not all(lay.free(x, y) for x, _ in cells) or not lay.free(*wrapped):
        return
    lay.source(*cells[0], d, period=lay.rng.choice((1, 2)))
    for x, _ in cells[1:]:
        lay.belt(x, y, d)
    lay.grid[wrapped[1]][wrapped[0]] = ord("K")


def _walls(lay: Layout) -> None:
    if (at := _heading(lay)) is None:
        return
    x, y, _, dx, dy = at
    for _ in range(lay.rng.randint(1, 8)):
        if not lay.free(x, y):
            break
        lay.grid[y][x] = ord("#")
        x, y = x + dx, y + dy


def _noise(lay: Layout, count: int) -> None:
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
                lay.recipe(ins, lay.rng.randint(1, 12), pool="noise")
            lay.assembler(x, y, d, lay.rng.randint(1, len(lay.recipes)))


_FEATURES = {  # the rarer machines first: each chosen feature is laid once, in this order
    "factories": _factory,
    "intakes": _intake,
    "rings": lambda lay: _ring(lay, jammed=False),
    "jammed_rings": lambda lay: _ring(lay, jammed=True),
    "head_on": _head_on,
    "hubs": _hub,
    "edges": _edge,
    "merges": _merge,
    "lines": _line,
    "walls": _walls,
}
FEATURES = tuple(_FEATURES)
# The features the bundled case's stress factories use: their lane stripes already end in
# head-on belts and shared sinks.
STRESS_FEATURES = ("lines", "merges", "rings", "jammed_rings", "factories", "intakes", "edges", "walls")


def add_features(lay: Layout, attempts: int, features: tuple[str, ...] = FEATURES) -> None:
    """Try to lay `attempts` features: each of `features` once (while the grid is emptiest),
    then the rest picked at random among them."""
    chosen = [name for name in _FEATURES if name in features]
    for name in chosen[:attempts]:
        for _ in range(FIRST_TRIES):  # until it finds room
            before = len(lay.sources) + len(lay.assemblers)
            _FEATURES[name](lay)
            if len(lay.sources) + len(lay.assemblers) > before or name == "walls":
                break
    builders = [_FEATURES[name] for name in features]
    for _ in range(attempts - len(chosen)):
        lay.rng.choice(builders)(lay)


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

    `density` (0..1) scales how many features are attempted (about one per 40 cells at
    1.0); `noise` (0..1) is the fraction of cells given a random single entity afterwards,
    facing anywhere (the only sources that may feed nothing).
    """
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"size {width}x{height} is outside 1..{MAX_SIDE}")
    for name, value in (("density", density), ("noise", noise)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {value:g}")
    unknown = set(features) - set(_FEATURES)
    if unknown:
        raise ValueError(f"unknown features: {sorted(unknown)}")
    rng = random.Random(seed)
    lay = Layout(width, height, rng)
    attempts = int(width * height * density / 40) + (1 if features else 0)
    add_features(lay, attempts, features)
    _noise(lay, int(width * height * noise))
    return lay.text(ticks=ticks, snapshot=snapshot, comment=f"generated: seed {seed}")
