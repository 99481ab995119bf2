"""The stress scenarios of the bundled Lattice case (version 6), deterministic from a seed.

A stress factory is cut into stripes of 16 rows. Most stripes are packed with belt lanes
in bands of three: the outer two lanes turn into the first belt of the middle one from
both sides, so side-loads are contended on every tick (and a wrong ranking shows), and
lanes end in sinks (they flow), walls (they fill, compress and sit idle), a sink shared by
a band's three lanes (fed from three sides at once), a head-on belt (which refuses them) or,
at the east edge, a belt pointing off the grid. Every fourth
stripe holds the generator's features: rotating rings fed two item types, rings that rotate
until a slow feeder jams them, two-stage crafting chains, assemblers offered one type from
three sides, lines to the east or west edge with a sink where a row-wrapping engine would
send their items, merges, lines with turns and walls. Since version 5, about half the rows
whose last belt points off the east edge begin with a sink (their first lane's source one
cell in), where an engine that wraps exits round as on a torus would deliver. Since
version 6 the top-left cell of a square factory is a belt off the grid that a source beside
it loads (in the one that is not square, a source feeding an assembler), and the comment in
front of the scenario starts with `grid` (a parser that reads a comment's words as keywords
stops there). So every
rule of the spec is decisive (a slip of it changes the state) at every size, and the largest
factories hold well over 100,000 belts.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from lattice_desktop.lattice.generator import STRESS_FEATURES, add_features, generate
from lattice_desktop.lattice.layout import Layout

STRIPE = 16  # rows per stripe
FEATURE_EVERY = 4  # every fourth stripe (the second of each four) holds features
CELLS_PER_MACHINE = 200  # rings, jammed rings, crafting chains, intakes and edge lines, each
MACHINES = ("rings", "jammed_rings", "factories", "intakes", "edges")
CELLS_PER_FEATURE = 40  # then features of every kind
EDGE_EXIT = 0.3  # lanes reaching the east edge that end in a belt pointing off the grid
HEAD_ON = 0.06  # other lanes that end in a head-on belt
HUB = 0.3  # units of three lanes that end in one sink fed from three sides
TORUS = 0.5  # rows ending in a belt off the east edge whose west edge cell becomes a sink
_N, _E, _S, _W = 0, 1, 2, 3


@dataclass(frozen=True)
class StressCase:
    """One stress scenario of the bundled case: a factory `size` cells wide and `height`
    tall (square when 0) run for `ticks`."""

    name: str
    size: int
    ticks: int
    snapshot: int
    seed: int = 1
    height: int = 0
    generated: bool = False  # a factory of the generator's (every feature, small) instead
    corner: bool = True  # cell 0 a belt a source loads (else a source feeding an assembler)

    def text(self) -> str:
        if self.generated:
            width, height = self.size, self.height or self.size
            return generate(self.seed, width=width, height=height, ticks=self.ticks, snapshot=self.snapshot)
        return stress(
            self.seed,
            size=self.size,
            ticks=self.ticks,
            snapshot=self.snapshot,
            height=self.height,
            corner=self.corner,
        )


def stress_scenarios() -> list[StressCase]:
    """The stress cases, smallest first; the two largest hold more than 100,000 belts. Since
    version 6 one is not square, so an engine that reads `size`'s two numbers the wrong way
    round shows, and it has a source feeding an assembler in its corner where the others
    have a belt (`_corner_assembler`, `_corner_belt`); the smallest is a small generated
    factory run for 8,400 ticks with a checksum every tick: its answer (67,200 bytes) is more
    than a page of wasm memory, so an engine that writes its answer past the end of what it
    allocated shows."""
    return [
        StressCase("stress-24-long", 24, 8_400, 1, seed=2, generated=True),
        StressCase("stress-64", 64, 120, 60, seed=9),
        StressCase("stress-128", 128, 160, 80),
        StressCase("stress-192x160", 192, 200, 100, height=160, corner=False),
        StressCase("stress-256", 256, 240, 120),
        StressCase("stress-384", 384, 280, 140),
        StressCase("stress-512", 512, 300, 150),
    ]


def stress(seed: int, *, size: int, ticks: int, snapshot: int, height: int = 0, corner: bool = True) -> str:
    """The text of a stress factory `size` wide and `height` (or `size`) tall (see the
    module's docstring)."""
    height = height or size
    rng = random.Random(seed)
    lay = Layout(size, height, rng)
    for n, top in enumerate(range(0, height, STRIPE)):
        bottom = min(height, top + STRIPE)
        if n % FEATURE_EVERY == 1:
            lay.rows = (top, bottom)
            area = (bottom - top) * size
            for kind in MACHINES:  # the rarer machines first
                add_features(lay, area // CELLS_PER_MACHINE, (kind,))
            add_features(lay, area // CELLS_PER_FEATURE, STRESS_FEATURES)
            lay.rows = (0, height)
        else:
            _lane_stripe(lay, top, bottom, ticks=ticks)
    _torus_catchers(lay)
    if corner:
        _corner_belt(lay)
    else:
        _corner_assembler(lay)
    # The comment starts with a keyword: a parser that reads a comment's words shows.
    return lay.text(ticks=ticks, snapshot=snapshot, comment=f"grid {size} x {height}: stress v6, seed {seed}")


def _torus_catchers(lay: Layout) -> None:
    """In rows whose last cell is a belt pointing off the east edge and whose first lane
    starts with a source at the west edge, now and then make that cell a sink and start the
    lane one cell in: the sink is where a torus-wrapping exit would land, and it accepts."""
    w = lay.width
    for y, row in enumerate(lay.grid):
        if row[w - 1] != ord(">") or (0, y) not in lay.sources or row[1] != ord(">"):
            continue
        d, item, period = lay.sources[(0, y)]
        if d != _E or lay.rng.random() >= TORUS:
            continue
        del lay.sources[(0, y)]
        row[0] = ord("K")
        lay.source(1, y, _E, item=item, period=period)


def _corner_belt(lay: Layout) -> None:
    """Make cell 0 (the top-left corner) a belt pointing off the grid that the source beside
    it loads from the side, and start row 0's lane one cell further in. Cell 0 is then an
    exit's target and holds an item at its own exit, as no other first-column cell of a
    stress factory does, so an engine that takes index 0 for "no cell" shows."""
    first = (0, 0) if (0, 0) in lay.sources else (1, 0)
    if first not in lay.sources or lay.grid[0][first[0] + 1] != ord(">"):
        raise ValueError("row 0 of a stress factory must start with a source and a belt east")
    _, item, period = lay.sources.pop(first)
    lay.belt(0, 0, _N)
    lay.source(1, 0, _W, item=_most_wanted(lay), period=1)
    lay.source(2, 0, _E, item=item, period=period)


def _corner_assembler(lay: Layout) -> None:
    """Keep row 0's source in cell 0 and make the cell east of it an assembler that crafts
    its items onto the row's lane: cell 0 is then a source whose entry and exit matter and an
    assembler's neighbour, so an engine that writes a stray index into cell 0's entry, or that
    skips cell 0 as "no cell", shows."""
    if (0, 0) not in lay.sources or lay.grid[0][1] != ord(">") or lay.grid[0][2] != ord(">"):
        raise ValueError("row 0 of a stress factory must start with a source and belts east")
    _, item, _period = lay.sources[(0, 0)]
    product = item % 8 + 1
    lay.assembler(1, 0, _E, lay.recipe([(item, 1)], product, pool="corner"))


def _most_wanted(lay: Layout) -> int:
    """The type the factory's assemblers take most often: the corner's item, so that an
    engine that counts cell 0 as every assembler's missing neighbour hands it on."""
    wanted = Counter(k for _, rid in lay.assemblers.values() for k, _n in lay.recipes[rid][2])
    return max(sorted(wanted), key=wanted.__getitem__) if wanted else 1


def _lane_stripe(lay: Layout, top: int, bottom: int, *, ticks: int) -> None:
    y = top
    while bottom - y >= 3:
        _merge_band(lay, y + 1, ticks=ticks)
        y += 3
    for row in range(y, bottom):
        x = 0
        while x < lay.width:
            b = _unit_end(lay, x)
            _lane(lay, row, x, b, period=lay.rng.choice((1, 1, 2, 3)))
            x = b


def _unit_end(lay: Layout, x: int) -> int:
    longest = max(24, lay.width // 3)
    b = x + lay.rng.randint(12, longest)
    return lay.width if lay.width - b < 12 else b


def _lane(lay: Layout, y: int, x: int, b: int, *, period: int) -> None:
    """A source at x, belts east, and a sink or a wall at b - 1 (nothing when too short)."""
    if b - x < 3:
        return
    lay.source(x, y, _E, item=lay.rng.randint(1, 8), period=period)
    for bx in range(x + 1, b - 1):
        lay.belt(bx, y, _E)
    _end(lay, b - 1, y)


def _end(lay: Layout, x: int, y: int) -> None:
    """A lane's last cell: mostly a sink or a wall; at the east edge now and then a belt whose
    exit points off the grid; elsewhere now and then a belt facing back at the lane (a head-on
    belt, which refuses every item the lane offers it)."""
    roll = lay.rng.random()
    if x == lay.width - 1 and roll < EDGE_EXIT:
        lay.belt(x, y, _E)
    elif roll < HEAD_ON:
        lay.belt(x, y, _W)
    else:
        lay.grid[y][x] = ord("K" if lay.rng.random() < 0.65 else "#")


def _merge_band(lay: Layout, y: int, *, ticks: int) -> None:
    """Rows y - 1, y, y + 1: units of three lanes; in each, the outer lanes turn into
    the middle lane's belt at column m, whose own lane behind it is a dead end (so the
    side-loads contend) or, now and then, a slow lane that outranks them both."""
    rng = lay.rng
    x = 0
    while x < lay.width:
        b = _unit_end(lay, x)
        if b - x < 12:
            for row in (y - 1, y, y + 1):
                _lane(lay, row, x, b, period=1)
            x = b
            continue
        m = x + rng.randint(3, max(3, min(b - x - 6, ticks // 8)))
        behind = rng.random() < 0.25
        lay.source(x, y, _E, item=rng.randint(1, 8), period=rng.choice((2, 3)) if behind else 1)
        for bx in range(x + 1, b - 1):
            lay.belt(bx, y, _E)
        if not behind:
            lay.grid[y][m - 1] = ord("#")
        _end(lay, b - 1, y)
        alone = None if rng.random() < 0.75 else rng.choice((y - 1, y + 1))  # a lane without a turn
        items = rng.sample(range(1, 9), 2)
        for row, turn, item in ((y - 1, _S, items[0]), (y + 1, _N, items[1])):
            if row == alone:
                _lane(lay, row, x, b, period=1)
                continue
            lay.source(x, row, _E, item=item, period=rng.choice((1, 1, 1, 2, 3)))
            for bx in range(x + 1, m):
                lay.belt(bx, row, _E)
            lay.belt(m, row, turn)
            _lane(lay, row, m + 1, b, period=rng.choice((1, 1, 2)))
        if rng.random() < HUB:  # the three lanes end in one sink: it takes from W, N and S at once
            lay.grid[y][b - 1] = ord("K")
            lay.belt(b - 1, y - 1, _S)
            lay.belt(b - 1, y + 1, _N)
        x = b
