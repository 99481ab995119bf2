"""The instrumented module runs under the case's limits: it stops itself at the case's
budget in original fuel, and wasmtime's own limit is only the instrumentation's bound."""

from __future__ import annotations

from lattice_desktop.profile.instrument import instrument
from lattice_desktop.profile.run import OVERHEAD_BOUND, overhead_bound
from tests.core.wat_cases import module_with_run_body
from tests.profile.wat_profile import profile_and_count

SPIN = module_with_run_body("(loop $l (br $l)) (i64.const 0)")


def test_a_run_past_the_budget_stops_at_the_budget_in_original_fuel(tmp_path):
    profile, counted = profile_and_count(tmp_path, SPIN)
    assert counted == profile.budget  # the grader: out of fuel at the budget
    assert profile.outcome == "out_of_fuel"
    assert profile.budget < profile.total <= profile.budget + 2  # one loop iteration past it
    assert profile.unattributed == profile.total - profile.attributed > 0
    assert profile.instrumented_fuel is not None
    assert profile.instrumented_fuel < profile.budget * OVERHEAD_BOUND


def test_the_backstop_grows_with_indirect_call_candidates():
    import wasmtime

    from tests.profile.control_flow import CONTROL_FLOW

    layout = instrument(bytes(wasmtime.wat2wasm(CONTROL_FLOW))).layout
    assert layout.max_candidates == 4  # double, square, negate and the exported alloc: (i32) -> i32
    assert overhead_bound(layout) > OVERHEAD_BOUND
