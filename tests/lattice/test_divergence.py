"""Finding the first tick at which a wrong engine's factory departs from the reference's."""

from __future__ import annotations

import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.divergence import bisect_first, find_divergence, first_difference, rewrite_run
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case
from lattice_desktop.work import Work

SUBMISSIONS = build_engines.SUBMISSIONS_DIR
REFERENCE = WasmEngine(SUBMISSIONS / "reference" / "engine.wasm")
LINES = WasmEngine(SUBMISSIONS / "lines" / "engine.wasm")
BUGGY = WasmEngine(SUBMISSIONS / "buggy" / "engine.wasm")
SCALE_BUG = WasmEngine(SUBMISSIONS / "scale_bug" / "engine.wasm")
CASE = load_case(demo_case())


def _search(
    data: bytes, wrong: WasmEngine, agrees: int, differs: int, *, checksums=None, reference=REFERENCE
):
    return find_divergence(
        data,
        agrees=agrees,
        differs=differs,
        reference_checksums=LINES.run,
        submission_checksums=checksums or wrong.run,
        reference_records=lambda t: reference.records(data, t),
        submission_records=lambda t: wrong.records(data, t),
    )


def _first_by_brute_force(data: bytes, wrong: WasmEngine, upto: int) -> int:
    return next(t for t in range(1, upto + 1) if REFERENCE.records(data, t) != wrong.records(data, t))


def test_rewrite_run_changes_only_ticks_and_snapshot():
    data = CASE.entry("side_load_priority").input_bytes()
    rewritten = rewrite_run(data, ticks=7, snapshot=1)
    before, after = parse_scenario(data), parse_scenario(rewritten)
    assert (after.ticks, after.snapshot) == (7, 1)
    assert after.grid == before.grid and after.sources == before.sources
    assert len(REFERENCE.run(rewritten)) == 7
    with pytest.raises(ValueError, match="grid"):
        rewrite_run(b"lattice 1\nticks 3\n", ticks=1, snapshot=1)


def test_first_difference_and_bisect():
    assert first_difference([1, 2, 3], [1, 2, 3]) is None
    assert first_difference([1, 2, 3], [1, 5, 3]) == 1
    assert first_difference([1, 2, 3], [1, 2]) == 2
    departs = 37
    probes = []
    assert bisect_first(0, 100, lambda t: probes.append(t) or t < departs) == departs
    assert len(probes) <= 7
    cancelled = Work()
    cancelled.cancel()
    with pytest.raises(Cancelled):
        bisect_first(0, 100, lambda t: True, cancelled)


def test_buggy_side_load_departs_at_the_first_wrong_tick():
    entry = CASE.entry("side_load_priority")
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    expected, got = REFERENCE.run(data), BUGGY.run(data)
    row = first_difference(expected, got)
    agrees, differs = row * scenario.snapshot, (row + 1) * scenario.snapshot
    found = _search(data, BUGGY, agrees, differs)
    assert found.tick == _first_by_brute_force(data, BUGGY, differs)
    assert agrees < found.tick <= differs and found.how == "per-tick checksums"
    assert found.diffs and found.submission_runs == 2


def test_an_engine_whose_answer_depends_on_the_header_is_bisected_by_records():
    entry = CASE.entry("side_load_priority")
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    expected, got = REFERENCE.run(data), BUGGY.run(data)
    row = first_difference(expected, got)
    agrees, differs = row * scenario.snapshot, (row + 1) * scenario.snapshot
    found = _search(data, BUGGY, agrees, differs, checksums=LINES.run)  # its checksums lie: all agree
    assert found.tick == _first_by_brute_force(data, BUGGY, differs)
    assert found.how == "bisecting records"


@pytest.mark.slow
def test_scale_bug_departs_when_a_line_takes_its_256th_item():
    entry = max(CASE.stress, key=lambda e: e.size)
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    row = first_difference(LINES.run(data), SCALE_BUG.run(data))
    assert row is not None
    # The search confirms with `lines`'s records (proven equal to the reference's here, at a
    # seventh of its CPU); the tick before is checked against the reference itself.
    found = _search(data, SCALE_BUG, row * scenario.snapshot, (row + 1) * scenario.snapshot, reference=LINES)
    assert found.tick == 256  # a line's item count is one byte: it wraps on its 256th item
    assert REFERENCE.records(data, found.tick - 1) == SCALE_BUG.records(data, found.tick - 1)
    assert found.diffs and found.cells == sorted(found.cells)
