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

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from lattice_desktop.lattice.divergence import Records
from lattice_desktop.lattice.records import as_pairs
from lattice_desktop.lattice.world import BELT_DIRS, Dir, Scenario

MAX_STEPS = 64
LADDER_RUNGS = 8  # ticks fetched ahead of a first "Why?" (`ladder`)


@dataclass(frozen=True)
class TrailStep:
    tick: int  # the tick the cell turned wrong
    cell: tuple[int, int]
    text: str  # what happened there, in a sentence
    origin: bool  # True: the first wrong decision (every neighbour agreed the tick before)

    def to_json(self) -> dict:
        return {"tick": self.tick, "cell": list(self.cell), "text": self.text, "origin": self.origin}


class _States:
    """Both sides' records by tick (each tick read once), looked up by cell.

    A read of the submission's records runs it from tick 0 (spec §8), so the search asks
    for several ticks at once (`read`): their submission runs go to `parallel` threads
    (wasm runs outside the GIL) while the reference's are read on the calling thread."""

    def __init__(
        self,
        reference: Callable[[int], Records],
        submission: Callable[[int], Records],
        pool: ThreadPoolExecutor | None,
    ) -> None:
        self._sides = (reference, submission)
        self._pool = pool
        self._pairs: dict[tuple[int, int], np.ndarray] = {}

    @property
    def ticks(self) -> list[int]:
        """The ticks both sides' records are read at, in order."""
        return sorted(t for side, t in self._pairs if side == 1 and (0, t) in self._pairs)

    def read(self, ticks: Iterable[int]) -> None:
        missing = sorted({t for t in ticks if (1, t) not in self._pairs or (0, t) not in self._pairs})
        if self._pool is None or len(missing) < 2:
            for t in missing:
                self._read(0, t)
                self._read(1, t)
            return
        runs = {t: self._pool.submit(self._read, 1, t) for t in missing if (1, t) not in self._pairs}
        for t in missing:
            self._read(0, t)
        for run in runs.values():
            run.result()

    def _read(self, side: int, tick: int) -> None:
        if (side, tick) not in self._pairs:
            self._pairs[side, tick] = as_pairs(self._sides[side](tick))

    def cell(self, side: int, tick: int, cell: int) -> frozenset:
        self._read(side, tick)
        pairs = self._pairs[side, tick]
        keys = pairs[:, 0]
        out: set[tuple[int, int]] = set()
        for kind in range(1, 7):  # a cell's records of one kind are one run of sorted keys
            low = np.uint64(kind << 56 | cell << 16)
            start, end = np.searchsorted(keys, [low, low + np.uint64(1 << 16)])
            out.update(zip(keys[start:end].tolist(), pairs[start:end, 1].tolist(), strict=True))
        return frozenset(out)

    def differs(self, tick: int, cell: int) -> bool:
        return self.cell(0, tick, cell) != self.cell(1, tick, cell)

    def narrow(self, cell: int, low: int, high: int) -> tuple[int, int]:
        """(low, high) closed in on the last tick `cell` turned wrong by the ticks read so
        far: the latest read tick before `high` where it agrees, and the first read one
        after that (where it differs, as at `high`)."""
        inside = [t for t in self.ticks if low < t < high]
        for t in reversed(inside):
            if not self.differs(t, cell):
                low = t
                break
        after = [t for t in inside if t > low]
        return low, (after[0] if after else high)

    def turned(
        self, cell: int, low: int, high: int, *, cheap: Sequence[int], probes: int, guess: int | None = None
    ) -> int:
        """A tick in (low, high] where `cell` turned wrong: it differs there and at `high`
        and agrees the tick before (as at `low`). Tried in order: the tick after `low` when
        it is the first of `cheap` (the first wrong tick, which the search read) and the cell
        is wrong there already; the ticks read so far; a bisection of the `cheap` ticks
        (answers the caller holds); `guess` and the tick before it, read together; then
        `probes` new ticks at a time, evenly spaced."""
        if cheap and cheap[0] == low + 1 < high and self.differs(low + 1, cell):
            return low + 1  # wrong from the first wrong tick on (the search read that tick)
        low, high = self.narrow(cell, low, high)
        near = [t for t in cheap if low < t < high]
        while near:  # bisecting the cheap ticks
            middle = near[len(near) // 2]
            self.read([middle])
            low, high = self.narrow(cell, low, high)
            near = [t for t in near if low < t < high]
        if guess is not None and low < guess - 1 and guess < high:
            self.read([guess - 1, guess])
            low, high = self.narrow(cell, low, high)
        while high - low > 1:
            span = high - low
            self.read(sorted({low + span * (i + 1) // (probes + 1) for i in range(probes)} - {low, high}))
            low, high = self.narrow(cell, low, high)
        return high


def ladder(agreed: int, shown: int, *, rungs: int = LADDER_RUNGS) -> list[int]:
    """Ticks between the first wrong tick (`agreed` + 1) and `shown` whose submission records,
    fetched ahead while the reviewer looks, a first "Why?" at `shown` bisects before it runs
    the submission itself (`why_trail`'s `cheap`): `rungs` evenly spaced, and 1, 2, 4, … ticks
    before `shown` as many again, because a run costs the more ticks it simulates (a bisection
    left near `shown` is the dearest)."""
    first, span = agreed + 1, shown - agreed - 1
    even = {first + span * (i + 1) // (rungs + 1) for i in range(rungs)}
    near = {shown - (1 << i) for i in range(rungs)}
    return sorted(t for t in even | near if first < t < shown)


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
    cheap: Sequence[int] = (),
    parallel: int = 1,
) -> list[TrailStep]:
    """The trail from `cell` (wrong at `tick`) back to the first wrong decision; `agreed` is a
    tick where both states agreed everywhere (the first wrong tick - 1, or 0).

    `cheap` names ticks whose submission records the caller already holds (the first wrong
    tick, a ladder fetched ahead); they are tried before any other. `parallel` submission
    runs go at once (1: one at a time); the search probes that many ticks a round."""
    probes = max(1, parallel)
    cheap = sorted({t for t in (agreed + 1, *cheap) if agreed < t <= tick})
    pool = ThreadPoolExecutor(max_workers=probes, thread_name_prefix="why-trail") if probes > 1 else None
    try:
        states = _States(reference_records, submission_records, pool)
        return _trace(scenario, states, cell=cell, tick=tick, agreed=agreed, cheap=cheap, probes=probes)
    finally:
        if pool is not None:
            pool.shutdown(wait=True)


def _trace(
    scenario: Scenario,
    states: _States,
    *,
    cell: int,
    tick: int,
    agreed: int,
    cheap: Sequence[int],
    probes: int,
) -> list[TrailStep]:
    w = scenario.width
    if not states.differs(tick, cell):
        raise ValueError(f"cell ({cell % w}, {cell // w}) agrees with the reference at tick {tick}")
    steps: list[TrailStep] = []
    seen: set[tuple[int, int]] = set()
    while len(steps) < MAX_STEPS:
        # all agree at `agreed`; an item moving down a line turns each cell wrong at a steady pace
        guess = 2 * steps[-1].tick - steps[-2].tick if len(steps) > 1 else None
        turned = states.turned(cell, agreed, tick, cheap=cheap, probes=probes, guess=guess)
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
