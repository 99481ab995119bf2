"""The `scale_bug` sample: right on every small factory, wrong once more than 65,536
belts hold items at the same time (its 16-bit table of busy belts wraps)."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

SUBMISSIONS = build_engines.SUBMISSIONS_DIR
SCALE_BUG = WasmEngine(SUBMISSIONS / "scale_bug" / "engine.wasm")
CASE = load_case(demo_case())


def _checksums(entry) -> list[int]:
    return np.frombuffer(entry.expected_bytes(), "<u8").tolist()


@pytest.mark.parametrize("entry", CASE.smoke, ids=lambda e: e.name)
def test_scale_bug_passes_every_smoke_test(entry):
    assert SCALE_BUG.run(entry.input_bytes()) == _checksums(entry)


def test_scale_bug_fails_the_two_largest_stress_cases_and_passes_the_small_ones():
    failed = [e.name for e in CASE.stress if SCALE_BUG.run(e.input_bytes()) != _checksums(e)]
    largest = sorted(CASE.stress, key=lambda e: e.size)[-2:]
    assert {e.name for e in largest} <= set(failed)
    assert CASE.stress[0].name not in failed


def test_scale_bug_is_the_reference_until_the_busy_table_wraps():
    """On the largest stress case it agrees with the reference while at most 65,536 belts
    hold items, and differs by the end, when more do."""
    entry = max(CASE.stress, key=lambda e: e.size)
    data = entry.input_bytes()
    reference = WasmEngine(SUBMISSIONS / "reference" / "engine.wasm")
    for tick, agrees in ((40, True), (_ticks(data), False)):
        records = reference.records(data, tick)
        busy = len({(k >> 16) & 0xFFFFFF for k in records if k >> 56 == 1})
        assert (busy <= 65536) == agrees, (tick, busy)
        assert (SCALE_BUG.records(data, tick) == records) == agrees, tick


def _ticks(data: bytes) -> int:
    return next(int(line.split()[1]) for line in data.decode().splitlines() if line.startswith("ticks"))
