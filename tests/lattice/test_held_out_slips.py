"""A few of the held-out slips (`held_out_slips/`) through `explain`: each passes every smoke
test, fails a stress case, and is named first. The whole table: `python -m
tests.lattice.held_out_slips.slips` (docs/divergence.md)."""

from __future__ import annotations

import pytest

from lattice_desktop.lattice.wasm_engine import WasmEngine
from tests.lattice.held_out_slips.slips import (
    LIMITS,
    SLIPS,
    build,
    explain_first_failure,
    rank_of,
    smoke_failures,
)


@pytest.mark.parametrize("n", [5, 24, 46, 54])
def test_a_held_out_slip_passes_the_smoke_tests_and_is_named_first(n):
    engine = WasmEngine(build(n), limits=LIMITS)
    assert smoke_failures(engine) == []
    diagnosis = explain_first_failure(engine)
    assert diagnosis is not None and diagnosis.case.startswith("stress-")
    assert rank_of(diagnosis, SLIPS[n]) == 1
