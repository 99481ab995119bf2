"""The "Why?" trail: a wrong cell traced back to the first decision that differed there.

Pernosco explains a wrong value by following its dataflow backwards to where it was set; a
factory's dataflow is items moving between neighbours. `why_trail` starts from a cell whose
state differs at a tick, finds the tick where that cell turned wrong (it agreed the tick
before), and looks at its neighbours then: a neighbour that feeds it, or that it feeds,
already wrong the tick before is where the wrongness came from (an item handed on, or a
blocked item backing up), so the trail moves there and repeats. It ends at a cell that
turned wrong while every neighbour still agreed: there, at that tick, the submission's
decision differed from the reference's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lattice_desktop.lattice.divergence import Records
from lattice_desktop.lattice.records import as_pairs
from lattice_desktop.lattice.world import BELT_DIRS, Dir, Scenario

MAX_STEPS = 64


@dataclass(frozen=True)
class TrailStep:
    tick: int  # the tick the cell turned wrong
    cell: tuple[int, int]
    text: str  # what happened there, in a sentence
    origin: bool  # True: the first wrong decision (every neighbour agreed the tick before)

    def to_json(self) -> dict:
        return {"tick": self.tick, "cell": list(self.cell), "text": self.text, "origin": self.origin}


class _States:
    """Both sides' records by tick (each tick read once), looked up by cell."""

    def __init__(self, reference: Callable[[int], Records], submission: Callable[[int], Records]) -> None:
        self._sides = (reference, submission)
        self._pairs: dict[tuple[int, int], np.ndarray] = {}

    def cell(self, side: int, tick: int, cell: int) -> frozenset:
        key = (side, tick)
        if key not in self._pairs:
            self._pairs[key] = as_pairs(self._sides[side](tick))
        pairs = self._pairs[key]
        keys = pairs[:, 0]
        out: set[tuple[int, int]] = set()
        for kind in range(1, 7):  # a cell's records of one kind are one run of sorted keys
            low = np.uint64(kind << 56 | cell << 16)
            start, end = np.searchsorted(keys, [low, low + np.uint64(1 << 16)])
            out.update(zip(keys[start:end].tolist(), pairs[start:end, 1].tolist(), strict=True))
        return frozenset(out)

    def differs(self, tick: int, cell: int) -> bool:
        return self.cell(0, tick, cell) != self.cell(1, tick, cell)


def _exit_dir(scenario: Scenario, c: int) -> Dir | None:
    char = scenario.grid[c]
    if char in BELT_DIRS:
        return BELT_DIRS[char]
    entity = scenario.sources.get(c) or scenario.assemblers.get(c)
    return entity.dir if entity is not None else None


def neighbours(scenario: Scenario, c: int) -> list[tuple[int, str]]:
    """(cell, how it is linked to c): cells whose exit targets c ("feeds"), and c's target ("fed")."""
    w, h = scenario.width, scenario.height
    out = []
    for d in Dir:
        x, y = c % w + d.dx, c // w + d.dy
        if not (0 <= x < w and 0 <= y < h):
            continue
        n = y * w + x
        if _exit_dir(scenario, n) == d.opposite():
            out.append((n, "feeds"))
        elif _exit_dir(scenario, c) == d:
            out.append((n, "fed"))
    return out


def why_trail(
    scenario: Scenario,
    *,
    cell: int,
    tick: int,
    agreed: int,
    reference_records: Callable[[int], Records],
    submission_records: Callable[[int], Records],
) -> list[TrailStep]:
    """The trail from `cell` (wrong at `tick`) back to the first wrong decision; `agreed` is a
    tick where both states agreed everywhere (the first wrong tick - 1, or 0)."""
    states = _States(reference_records, submission_records)
    w = scenario.width
    if not states.differs(tick, cell):
        raise ValueError(f"cell ({cell % w}, {cell // w}) agrees with the reference at tick {tick}")
    steps: list[TrailStep] = []
    seen: set[tuple[int, int]] = set()
    while len(steps) < MAX_STEPS:
        low, high = agreed, tick  # agrees at low (everything does), differs at high
        if high - low > 1 and states.differs(low + 1, cell):
            high = low + 1  # wrong from the first tick on (the tick the search read already)
        while high - low > 1:
            middle = (low + high) // 2
            if states.differs(middle, cell):
                high = middle
            else:
                low = middle
        turned = high
        wrong = [
            (n, how)
            for n, how in neighbours(scenario, cell)
            if turned - 1 > agreed and states.differs(turned - 1, n)
        ]
        wrong.sort(key=lambda item: item[1] != "feeds")  # an item handed in first, then a backed-up exit
        xy = (cell % w, cell // w)
        if not wrong or (wrong[0][0], turned - 1) in seen:
            steps.append(
                TrailStep(
                    turned,
                    xy,
                    f"turned wrong at tick {turned:,} while its neighbours still agreed: "
                    "the submission decided otherwise here",
                    True,
                )
            )
            return steps
        n, how = wrong[0]
        nxy = (n % w, n // w)
        text = (
            f"turned wrong at tick {turned:,}: it takes items from ({nxy[0]}, {nxy[1]}), "
            f"wrong since tick {turned - 1:,} or before"
            if how == "feeds"
            else f"turned wrong at tick {turned:,}: its exit leads to ({nxy[0]}, {nxy[1]}), "
            "wrong the tick before"
        )
        steps.append(TrailStep(turned, xy, text, False))
        seen.add((n, turned - 1))
        cell, tick = n, turned - 1
    return steps
