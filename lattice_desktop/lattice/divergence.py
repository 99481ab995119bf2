"""Where a wrong engine's factory first departs from the reference's, cell by cell and tick
by tick. Plain Python, no Qt: the Factory tab runs it on a worker thread.

Snapshots say only that the states differ somewhere in (last agreeing snapshot, first
disagreeing one]. `find_divergence` narrows that to the first tick:

1. One run of each engine on the same scenario re-headed to stop at the disagreeing
   snapshot with a checksum after every tick (`rewrite_run`): the state after tick t does
   not depend on `ticks` or `snapshot` (spec §4), so the first differing checksum is the
   first differing state.
2. The submission's records at that tick confirm it (they must differ from the
   reference's); an engine whose answer does depend on the header is caught there and
   the search falls back to bisecting on records (`bisect_first`), one run per probe.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from lattice_desktop.lattice.records import RecordDiff, as_pairs, cell_counts, diff_pairs
from lattice_desktop.work import Work

Records = Mapping[int, int] | np.ndarray  # or (n, 2) uint64 (key, value) pairs

_HEADER_LINE = re.compile(rb"^[ \t]*(ticks|snapshot)[ \t]+\S+[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True)
class Divergence:
    """The first tick at which the submission's state differs from the reference's."""

    tick: int
    agreed: int  # the last tick known to agree (tick - 1 when found exactly)
    diffs: tuple[RecordDiff, ...]  # the records that differ at `tick`, sorted by key
    submission_runs: int  # calls into the submission it took
    how: str  # "per-tick checksums" or "bisecting records"

    cells: list[int] = field(init=False, compare=False)  # the differing cells, in grid order

    def __post_init__(self) -> None:  # worked out where the search runs, off the GUI thread
        object.__setattr__(self, "cells", list(cell_counts(self.diffs)))

    def extent(self, width: int) -> str:
        """The records and cells that differ, and the first cell, on a grid `width` cells wide."""
        first = self.cells[0] if self.cells else 0
        return (
            f"{len(self.diffs):,} records in {len(self.cells):,} cells, "
            f"first at ({first % width}, {first // width})"
        )


def rewrite_run(data: bytes, *, ticks: int, snapshot: int) -> bytes:
    """The scenario with its `ticks` and `snapshot` lines replaced (nothing else changes)."""
    grid = re.search(rb"^[ \t]*grid[ \t]*\r?$", data, re.MULTILINE)
    if grid is None:
        raise ValueError("the scenario has no grid line")
    header, rest = data[: grid.start()], data[grid.start() :]
    values = {b"ticks": ticks, b"snapshot": snapshot}
    header, count = _HEADER_LINE.subn(lambda m: b"%s %d" % (m.group(1), values[m.group(1)]), header)
    if count != 2:
        raise ValueError("the scenario needs exactly one ticks and one snapshot line")
    return header + rest


def first_difference(expected: Sequence[int], got: Sequence[int]) -> int | None:
    """The first index where two checksum lists differ (a missing value differs)."""
    for i in range(max(len(expected), len(got))):
        if i >= len(expected) or i >= len(got) or expected[i] != got[i]:
            return i
    return None


def bisect_first(agrees: int, differs: int, same_at: Callable[[int], bool], work: Work | None = None) -> int:
    """The first tick in (agrees, differs] where `same_at` is false, given it is true at
    `agrees` and false at `differs` (a transition, the first one when states stay apart)."""
    low, high = agrees, differs
    while high - low > 1:
        if work is not None:
            work.raise_if_cancelled()
        middle = (low + high) // 2
        if same_at(middle):
            low = middle
        else:
            high = middle
    return high


def find_divergence(
    data: bytes,
    *,
    agrees: int,
    differs: int,
    reference_checksums: Callable[[bytes], Sequence[int]],
    submission_checksums: Callable[[bytes], Sequence[int]],
    reference_records: Callable[[int], Records],
    submission_records: Callable[[int], Records],
    work: Work | None = None,
) -> Divergence:
    """The first tick in (agrees, differs] where the submission's records differ from the
    reference's; `agrees` is 0 or a tick whose snapshot matched, `differs` one that did not.
    `work` is checked between runs and told what is being compared."""
    if not 0 <= agrees < differs:
        raise ValueError(f"no ticks between {agrees} and {differs}")

    work = work or Work()

    def check() -> None:
        work.raise_if_cancelled()

    def say(text: str, fraction: float) -> None:
        work.report(fraction, text)

    runs = 0
    probe = rewrite_run(data, ticks=differs, snapshot=1)
    say(f"comparing checksums tick by tick up to tick {differs:,}…", 0.0)
    expected = list(reference_checksums(probe))
    check()
    got, runs = list(submission_checksums(probe)), runs + 1
    check()
    index = first_difference(expected[agrees:differs], got[agrees:differs])
    if index is not None:
        tick = agrees + index + 1
        say(f"confirming with the records at tick {tick:,}…", 0.6)
        diffs, runs = diff_pairs(reference_records(tick), submission_records(tick)), runs + 1
        if diffs:
            return Divergence(tick, tick - 1, tuple(diffs), runs, "per-tick checksums")
    say("bisecting the records between the snapshots…", 0.6)

    def same_at(tick: int) -> bool:
        nonlocal runs
        say(f"bisecting: records at tick {tick:,}…", 0.7)
        runs += 1
        return np.array_equal(as_pairs(reference_records(tick)), as_pairs(submission_records(tick)))

    tick = bisect_first(agrees, differs, same_at, work)
    diffs, runs = diff_pairs(reference_records(tick), submission_records(tick)), runs + 1
    return Divergence(tick, tick - 1, tuple(diffs), runs, "bisecting records")


def next_divergence(
    data: bytes,
    *,
    start: int,
    end: int,
    reference_checksums: Callable[[bytes], Sequence[int]],
    submission_checksums: Callable[[bytes], Sequence[int]],
    reference_records: Callable[[int], Records],
    submission_records: Callable[[int], Records],
    work: Work | None = None,
    window: int = 64,
    known: list[int] | None = None,
    cap: int | None = None,
) -> Divergence | None:
    """The first tick t in (start, end] where the states part: they differ at t and agreed
    at t - 1 (a run already apart at `start` is looked at from where it next comes
    together). Both engines run with a checksum after every tick, over windows that double
    from `window` ticks past `start` (each run restarts at tick 0: an engine cannot resume),
    so it costs at most about twice a run to the first such tick; between runs `work` is
    checked and told how far the comparison has got. None when there is no such tick.

    `known` holds the reference's checksum after each tick as far as an earlier search ran
    it (index i: tick i + 1); it is read instead of running the reference again, and
    extended by every longer run, so a second search costs only the submission's runs.

    `cap`: a tick where the states are known to differ (a snapshot whose checksums differ):
    the window that would step over it ends there instead, since a parting lies at or before
    it unless the states were already apart; from there the windows go on doubling. A
    divergence found doubling from 32 to tick 256 ran the submission to 32, 96, 224 and 480;
    with the snapshot at 300 known to differ, the last run stops at 300."""
    work = work or Work()
    runs, high = 0, start
    while high < end:
        before, high = high, min(end, high + window)
        if cap is not None and before < cap < high:
            high = cap
        window *= 2
        probe = rewrite_run(data, ticks=high, snapshot=1)
        if known is not None and len(known) >= high:
            expected = known[:high]
        else:
            expected = list(reference_checksums(probe))
            if known is not None and len(expected) > len(known):
                known[:] = expected
        work.raise_if_cancelled()
        got, runs = list(submission_checksums(probe)), runs + 1
        work.raise_if_cancelled()
        tick = _first_parting(expected, got, start, high)
        if tick is not None:
            diffs, runs = diff_pairs(reference_records(tick), submission_records(tick)), runs + 1
            return Divergence(tick, tick - 1, tuple(diffs), runs, "per-tick checksums")
        work.report((high - start) / max(1, end - start), f"compared tick by tick through {high:,}")
    return None


def _first_parting(expected: Sequence[int], got: Sequence[int], start: int, high: int) -> int | None:
    """The first tick in (start, high] whose checksums differ after one that agreed (index i
    holds tick i + 1; tick 0, the scenario itself, agrees)."""
    same = [True] + [i < len(expected) and i < len(got) and expected[i] == got[i] for i in range(high)]
    for tick in range(start + 1, high + 1):
        if same[tick - 1] and not same[tick]:
            return tick
    return None
