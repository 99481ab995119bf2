"""A scenario being laid out: the grid, its source, assembler and recipe lines, and the
building blocks (belt paths, feeder lines) the generator's features are made of."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

DIRS = "NESW"
ARROWS = "^>v<"
_DELTA = ((0, -1), (1, 0), (0, 1), (-1, 0))
_PERIODS = (1, 1, 1, 2, 2, 3, 4, 5, 7, 11)
MAX_SIDE = 4096
# Recipes per pool before new ones reuse old ones: 3 pools stay within the 255 recipe ids
# (the chains' second stage may add one more per intermediate product, 21 at most).
POOL_SIZE = 70


def _left(d: int) -> int:
    return (d + 3) % 4


def _right(d: int) -> int:
    return (d + 1) % 4


@dataclass
class Layout:
    """A scenario being built: the grid plus the source, assembler and recipe lines."""

    width: int
    height: int
    rng: random.Random
    grid: list[bytearray] = field(init=False)
    sources: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)
    assemblers: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    recipes: dict[int, tuple[int, int, list[tuple[int, int]]]] = field(default_factory=dict)
    # the rows features may use (stress scenarios keep them to their feature stripes)
    rows: tuple[int, int] = (0, 0)
    pools: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.grid = [bytearray(b"." * self.width) for _ in range(self.height)]
        self.rows = (0, self.height)

    def free(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and self.rows[0] <= y < self.rows[1] and self.grid[y][x] == ord(".")

    def random_free(self) -> tuple[int, int] | None:
        for _ in range(8):
            x, y = self.rng.randrange(self.width), self.rng.randrange(*self.rows)
            if self.free(x, y):
                return x, y
        return None

    def belt(self, x: int, y: int, d: int) -> None:
        self.grid[y][x] = ord(ARROWS[d])

    def source(self, x: int, y: int, d: int, *, item: int | None = None, period: int | None = None) -> None:
        self.grid[y][x] = ord("S")
        item = item if item is not None else self.rng.randint(1, 8)
        self.sources[(x, y)] = (d, item, period if period is not None else self.rng.choice(_PERIODS))

    def assembler(self, x: int, y: int, d: int, recipe: int) -> None:
        self.grid[y][x] = ord("A")
        self.assemblers[(x, y)] = (d, recipe)

    def recipe(self, inputs: list[tuple[int, int]], product: int, *, pool: str, consumes: int = 0) -> int:
        """A new recipe id, or, once `pool` holds POOL_SIZE recipes, an existing one of the
        pool (that takes `consumes`, when given): ids are 1..255, so big factories share
        recipes. Callers read the inputs and product back from `recipes`."""
        ids = self.pools.setdefault(pool, [])
        fitting = [r for r in ids if not consumes or consumes in dict(self.recipes[r][2])]
        if fitting and (len(ids) >= POOL_SIZE or len(self.recipes) >= 255):
            return self.rng.choice(fitting)
        rid = len(self.recipes) + 1
        self.recipes[rid] = (product, self.rng.randint(1, 6), inputs)
        ids.append(rid)
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

    def feeder(
        self,
        x: int,
        y: int,
        d: int,
        length: int,
        *,
        turns: float,
        item: int | None,
        period: int | None = None,
    ) -> bool:
        """Lay up to `length` belts backwards from (x, y), the last one pointing d, and put a
        source in the free cell behind the first. False when not even one belt fits."""
        if not self.free(x, y):
            return False
        for _ in range(length):
            self.belt(x, y, d)
            back = d
            if self.rng.random() < turns:
                back = self.rng.choice((_left(d), _right(d)))
            for way in dict.fromkeys((back, d)):  # a turn that does not fit goes straight
                dx, dy = _DELTA[way]
                if self.free(x - dx, y - dy):
                    x, y, d = x - dx, y - dy, way
                    break
            else:
                return True  # boxed in: the belts stay, fed by whatever reaches them
        self.source(x, y, d, item=item, period=period)
        return True

    def junction(self, x: int, y: int, d: int) -> bool:
        """A belt at (x, y) facing d fed from its left and right by two item types on every
        tick, with a wall behind it: nothing outranks the side-loads, so the left one's win
        (spec §4c) decides which type goes on whenever the belt has room."""
        dx, dy = _DELTA[d]
        sides = [_left(d), _right(d)]
        if not self.free(x, y) or not all(self.free(x + _DELTA[s][0], y + _DELTA[s][1]) for s in sides):
            return False
        self.belt(x, y, d)
        if self.free(x - dx, y - dy):
            self.grid[y - dy][x - dx] = ord("#")
        for side, item in zip(sides, self.rng.sample(range(1, 9), 2), strict=True):
            sx, sy = _DELTA[side]
            self.feeder(
                x + sx, y + sy, (side + 2) % 4, self.rng.randint(0, 3), turns=0.2, item=item, period=1
            )
        return True
