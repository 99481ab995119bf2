"""The "Why?" trail's cost: how many times it runs the submission (each run simulates from
tick 0, spec §8), counted through real runs of the bundled `buggy` engine on stress-64."""

from __future__ import annotations

import functools
import math
import threading

import numpy as np
import pytest

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.explain.trail import TrailStep, ladder, why_trail
from lattice_desktop.lattice.records import as_pairs, key_cells
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.submission_records import open_submission, submission_pairs, ticks_held
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

SUBMISSIONS = build_engines.SUBMISSIONS_DIR
LINES = WasmEngine(SUBMISSIONS / "lines" / "engine.wasm")
BUGGY = WasmEngine(SUBMISSIONS / "buggy" / "engine.wasm")
DATA = load_case(demo_case()).entry("stress-64").input_bytes()
SCENARIO = parse_scenario(DATA)
SHOWN = SCENARIO.ticks  # the last snapshot, where the states differ


class Counted:
    """The submission's records, each call a real run; the ticks asked, in order, and how many
    calls ran at once at most (`hold`: a call on a trail's thread waits for a second one)."""

    def __init__(self, *, hold: bool = False) -> None:
        self.ticks: list[int] = []
        self.most = 0
        self._active = 0
        self._hold = hold
        self._lock = threading.Condition()

    def __call__(self, tick: int):
        with self._lock:
            self.ticks.append(tick)
            self._active += 1
            self.most = max(self.most, self._active)
            self._lock.notify_all()
            if self._hold and threading.current_thread().name.startswith("why-trail"):
                self._lock.wait_for(lambda: self._active >= 2, timeout=5)
        try:
            return BUGGY.records(DATA, tick)
        finally:
            with self._lock:
                self._active -= 1


@pytest.fixture(scope="module")
def first_wrong() -> int:
    return next(t for t in range(1, SHOWN + 1) if LINES.records(DATA, t) != BUGGY.records(DATA, t))


@functools.cache
def _both(tick: int) -> tuple[np.ndarray, np.ndarray]:
    """Both sides' records at `tick`, for checking a trail's answer (not counted)."""
    return as_pairs(LINES.records(DATA, tick)), as_pairs(BUGGY.records(DATA, tick))


def _differs(tick: int, cell: int) -> bool:
    ref, sub = _both(tick)
    mine = [pairs[key_cells(pairs[:, 0]) == cell] for pairs in (ref, sub)]
    return not np.array_equal(*mine)


def _differing_cells() -> list[int]:
    ref, sub = _both(SHOWN)
    both = {tuple(row) for row in ref.tolist()} ^ {tuple(row) for row in sub.tolist()}
    return sorted({(key >> 16) & 0xFFFFFF for key, _ in both})


def _trail(cell: int, agreed: int, submission: Counted, **options) -> list[TrailStep]:
    return why_trail(
        SCENARIO,
        cell=cell,
        tick=SHOWN,
        agreed=agreed,
        reference_records=lambda t: LINES.records(DATA, t),
        submission_records=submission,
        **options,
    )


@pytest.fixture(scope="module")
def long_trail_cell(first_wrong) -> int:
    """A differing cell whose trail walks back a line of belts (at least 8 steps)."""
    for cell in _differing_cells()[::7]:
        if len(_trail(cell, first_wrong - 1, Counted(), parallel=1)) >= 8:
            return cell
    raise AssertionError("no long trail on stress-64")


def test_a_long_trail_runs_the_submission_at_most_three_times_a_step_each_tick_once(
    first_wrong, long_trail_cell
):
    agreed, cell = first_wrong - 1, long_trail_cell
    submission = Counted()
    trail = _trail(cell, agreed, submission, parallel=1)
    assert len(submission.ticks) == len(set(submission.ticks))  # no tick is run twice
    first_step = 1 + math.ceil(math.log2(SHOWN - agreed))  # the shown tick, then bisecting its range
    assert len(submission.ticks) <= first_step + 3 * (len(trail) - 1), (len(submission.ticks), len(trail))
    for step in trail:  # each step is where its cell turned wrong: right the tick before
        c = step.cell[1] * SCENARIO.width + step.cell[0]
        assert _differs(step.tick, c) and not _differs(step.tick - 1, c)
    assert trail[-1].origin and trail[-1].tick >= first_wrong


def test_two_probes_run_at_once_and_find_where_the_cell_turned_wrong(first_wrong, long_trail_cell):
    agreed, cell = first_wrong - 1, long_trail_cell
    together, alone = Counted(hold=True), Counted()
    trail = _trail(cell, agreed, together, parallel=2)
    _trail(cell, agreed, alone, parallel=1)
    assert together.most == 2 and alone.most == 1
    assert len(together.ticks) == len(set(together.ticks))
    for step in trail:
        c = step.cell[1] * SCENARIO.width + step.cell[0]
        assert _differs(step.tick, c) and not _differs(step.tick - 1, c)


def test_ticks_the_caller_holds_are_tried_before_any_other(first_wrong):
    agreed = first_wrong - 1
    cell = _differing_cells()[0]
    held = list(range(first_wrong, SHOWN))  # as if every tick's answer were on disk already
    submission = Counted()
    trail = _trail(cell, agreed, submission, cheap=held)
    assert set(submission.ticks) <= set(held) | {SHOWN}  # no tick outside those held was run
    assert len(submission.ticks) <= 1 + (1 + math.ceil(math.log2(len(held)))) * len(trail)


def test_the_ladder_lies_strictly_between_the_first_wrong_tick_and_the_tick_shown():
    rungs = ladder(0, 150)
    assert rungs == sorted(set(rungs)) and all(1 < t < 150 for t in rungs)
    assert {149, 148, 146, 142} <= set(rungs) and len([t for t in rungs if t < 100]) >= 5
    assert ladder(5, 6) == [] and ladder(5, 8) == [7]


def test_the_ticks_held_on_disk_are_those_a_run_answered(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    case = load_case(demo_case())
    sub = open_submission(str(SUBMISSIONS / "buggy"), case, "stress-64")
    assert ticks_held(sub, DATA, [3, 5, 7]) == []
    submission_pairs(sub, SCENARIO, DATA, 5)
    assert ticks_held(sub, DATA, [7, 5, 3, 5]) == [5]
    assert ticks_held(sub, DATA + b"\n", [5]) == []  # another scenario's answers are its own
