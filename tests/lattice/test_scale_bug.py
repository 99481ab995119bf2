"""The `scale_bug` sample: the lines engine with a line's item count kept in one byte.
Right on every small factory; wrong once some line holds 256 items, which takes a line of
at least 64 belts jammed for 256 ticks."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

SUBMISSIONS = build_engines.SUBMISSIONS_DIR
SCALE_BUG = WasmEngine(SUBMISSIONS / "scale_bug" / "engine.wasm")
LINES = WasmEngine(SUBMISSIONS / "lines" / "engine.wasm")
CASE = load_case(demo_case())
BELT_ITEM, SINK_COUNT = 1, 3  # record kinds (key >> 56) of spec §8: a belt item, a sink count


def _checksums(entry) -> list[int]:
    return np.frombuffer(entry.expected_bytes(), "<u8").tolist()


@pytest.mark.parametrize("entry", CASE.smoke, ids=lambda e: e.name)
def test_scale_bug_passes_every_smoke_test(entry):
    assert SCALE_BUG.run(entry.input_bytes()) == _checksums(entry)


def test_scale_bug_fails_the_two_largest_stress_cases_and_passes_the_others():
    failed = {e.name for e in CASE.stress if SCALE_BUG.run(e.input_bytes()) != _checksums(e)}
    largest = {e.name for e in sorted(CASE.stress, key=lambda e: e.size)[-2:]}
    assert failed == largest
    # Only they run long enough for a line to take its 256th item (stress-24-long runs 8,400
    # ticks, but no line of its 24 x 24 factory is long enough to hold 256 items).
    stress = [e for e in CASE.stress if e.name != "stress-24-long"]
    assert all((parse_scenario(e.input_bytes()).ticks >= 256) == (e.name in largest) for e in stress)


def test_scale_bug_is_the_lines_engine_until_a_line_takes_its_256th_item():
    """On the largest stress case it agrees through tick 255; at tick 256 the lines that
    took an item on every tick wrap to 0 and drop all 256 of theirs: every difference is
    a belt item the sample lost, and they come in whole lines of 256."""
    data = max(CASE.stress, key=lambda e: e.size).input_bytes()
    assert SCALE_BUG.records(data, 255) == LINES.records(data, 255)
    expected, got = LINES.records(data, 256), SCALE_BUG.records(data, 256)
    lost = {k for k, v in expected.items() if got.get(k) != v}
    assert lost and not set(got) - set(expected)
    assert {k >> 56 for k in lost} == {BELT_ITEM} and not lost & set(got)
    assert len(lost) % 256 == 0


def test_the_two_largest_stress_cases_count_past_255_in_a_sink_and_index_cells_past_65535():
    # Two more scale slips they must expose: a sink's count kept in a byte, and a cell index
    # kept in 16 bits (both are part of every record's key or value, so of the checksum).
    for entry in sorted(CASE.stress, key=lambda e: e.size)[-2:]:
        data = entry.input_bytes()
        records = LINES.records(data, parse_scenario(data).ticks)
        sink_counts = [v for k, v in records.items() if k >> 56 == SINK_COUNT]
        assert max(sink_counts) > 255, entry.name
        assert max((k >> 16) & 0xFF_FFFF for k in records) > 65_535, entry.name
