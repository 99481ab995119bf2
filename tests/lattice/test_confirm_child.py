"""The confirmation child: the reference's checksums it prints are the engine's own, an engine
that agrees is confirmed to the last snapshot, one that parts is confirmed only before it."""

from __future__ import annotations

import pytest

from lattice_desktop.lattice.confirm_child import confirm_in_child
from lattice_desktop.lattice.wasm_engine import REFERENCE_WASM, WasmEngine
from lattice_desktop.resources import CASES
from lattice_desktop.work import Work

LATTICE = CASES / "lattice"
SAMPLES = LATTICE / "submissions"
pytestmark = pytest.mark.skipif(
    not (SAMPLES / "scale_bug" / "engine.wasm").is_file(), reason="samples not built"
)


def test_an_engine_that_agrees_is_confirmed_snapshot_by_snapshot():
    data = (LATTICE / "stress" / "stress-64.lat").read_bytes()
    seen = []
    found = confirm_in_child(SAMPLES / "lines" / "engine.wasm", REFERENCE_WASM, data, work=Work(seen.append))
    assert list(found.reference) == WasmEngine(REFERENCE_WASM).run(data)
    assert found.parted_at is None and found.confirmed_to == len(found.reference) * found.interval
    confirmed = [s.item.confirmed_to for s in seen]
    assert confirmed == sorted(confirmed) and confirmed[0] == found.interval  # it grew as it went


def test_an_engine_that_parts_is_confirmed_only_before_it():
    data = (LATTICE / "stress" / "stress-512.lat").read_bytes()
    found = confirm_in_child(SAMPLES / "scale_bug" / "engine.wasm", REFERENCE_WASM, data)
    got = WasmEngine(SAMPLES / "scale_bug" / "engine.wasm").run(data)
    first = next(i for i, (a, b) in enumerate(zip(found.reference, got, strict=True)) if a != b)
    assert found.parted_at == (first + 1) * found.interval
    assert found.confirmed_to == first * found.interval
