"""A limit is named only when the grader saw it hit: memory_limit only when a memory.grow
was refused (proven by re-running the case with the limit raised), out_of_fuel only when
fuel ran out, a stack overflow only on its trap, timeout only when the deadline fired.
Everything else is reported as itself, and no detail states a cause nobody observed."""

from __future__ import annotations

import threading

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox import engine
from tests.core.wat_cases import ECHO_CASES, module_with_run_body, write_case, write_submission

LIMIT_MIB = 1024
GROWN_MIB = 1000  # the module: grown once, never refused
BIG = f"memory_limit_mib = {LIMIT_MIB}\nwall_clock_s = 20"
GROW_ONCE = f"(drop (memory.grow (i32.const {GROWN_MIB * 16 - 1})))"  # 1 page + the rest
WRONG_ANSWER = "(i64.const 0x0000040000000002)"  # two bytes at 1024: not the input
DIVIDE_BY_ZERO = "(drop (i32.div_u (i32.const 1) (i32.sub (local.get 1) (local.get 1))))"
REFUSED = f"(if (i32.eq (memory.grow (i32.const {(LIMIT_MIB - GROWN_MIB) * 16 + 1})) (i32.const -1)) (then unreachable))"
RETURN_INPUT = """(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
                         (i64.extend_i32_u (local.get 1)))"""


def first(tmp_path, wat, *, sandbox=BIG, fuel_limit=100_000):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, fuel_limit=fuel_limit, sandbox=sandbox))
    return grade(case, load_submission(write_submission(tmp_path / "sub", wat)), workers=1).results[0]


def test_a_module_grown_near_the_limit_that_answers_wrong_is_a_wrong_answer(tmp_path):
    result = first(tmp_path, module_with_run_body(f"{GROW_ONCE} {WRONG_ANSWER}"))
    assert result.outcome is Outcome.WRONG_ANSWER
    assert "memory" not in result.detail and "refused" not in result.detail
    assert result.detail.startswith("wrong answer: byte 2")


def test_the_same_module_dividing_by_zero_is_a_trap(tmp_path):
    result = first(tmp_path, module_with_run_body(f"{GROW_ONCE} {DIVIDE_BY_ZERO} {WRONG_ANSWER}"))
    assert result.outcome is Outcome.TRAP and result.trap_code == "integer_division_by_zero"
    assert "refused" not in result.detail
    # What was seen is said: the memory it had when it trapped.
    assert f"{GROWN_MIB:.1f} MiB of the {LIMIT_MIB} MiB memory limit in use" in result.detail


def test_a_refused_grow_is_a_memory_limit_and_says_how_it_was_seen(tmp_path):
    result = first(tmp_path, module_with_run_body(f"{GROW_ONCE} {REFUSED} {RETURN_INPUT}"))
    assert result.outcome is Outcome.MEMORY_LIMIT
    assert result.trap_code == "unreachable"  # what ended the call is kept
    assert f"memory.grow was refused at the {LIMIT_MIB} MiB memory limit" in result.detail
    assert f"with {2 * LIMIT_MIB} MiB" in result.detail and "passed" in result.detail


def test_alloc_at_the_limit_returning_a_bad_pointer_is_a_contract_violation(tmp_path):
    # Memory starts at the limit and nothing ever grows: no grow was refused.
    wat = module_with_run_body(RETURN_INPUT, memory="64").replace(
        "i32.const 1024)", "i32.const 0xfffffff8)", 1
    )
    result = first(tmp_path, wat, sandbox="memory_limit_mib = 4\nwall_clock_s = 20")
    assert result.outcome is Outcome.CONTRACT_VIOLATION
    assert "alloc(5) returned 0xfffffff8, outside memory" in result.detail
    assert "limit" not in result.detail


def test_alloc_whose_grow_was_refused_is_a_memory_limit(tmp_path):
    alloc = "(if (i32.eq (memory.grow (i32.const 64)) (i32.const -1)) (then (return (i32.const -1)))) i32.const 1024)"
    wat = module_with_run_body(RETURN_INPUT).replace("i32.const 1024)", alloc, 1)
    result = first(tmp_path, wat, sandbox="memory_limit_mib = 4\nwall_clock_s = 20")
    assert result.outcome is Outcome.MEMORY_LIMIT
    assert "alloc(5) returned 0xffffffff" in result.detail
    assert "memory.grow was refused at the 4 MiB memory limit" in result.detail


def test_a_stack_overflow_near_the_memory_limit_is_a_stack_overflow(tmp_path):
    wat = module_with_run_body(
        f"{GROW_ONCE} (drop (call $down (i32.const 0))) (i64.const 0)",
        extra="(func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))",
    )
    result = first(tmp_path, wat, fuel_limit=10**9)
    assert result.outcome is Outcome.TRAP and result.trap_code == "stack_overflow"
    assert "trap: stack_overflow" in result.detail and "refused" not in result.detail


def test_running_out_of_fuel_near_the_memory_limit_is_out_of_fuel(tmp_path):
    wat = module_with_run_body(f"{GROW_ONCE} (loop $forever (br $forever)) (i64.const 0)")
    result = first(tmp_path, wat, fuel_limit=2_000_000)
    assert result.outcome is Outcome.OUT_OF_FUEL and result.fuel == 2_000_000
    assert "ran out of fuel" in result.detail and "memory" not in result.detail


def test_a_timeout_says_how_long_the_call_ran(tmp_path):
    wat = module_with_run_body("(loop $forever (br $forever)) (i64.const 0)")
    result = first(tmp_path, wat, fuel_limit=10**15, sandbox="wall_clock_s = 0.5")
    assert result.outcome is Outcome.TIMEOUT
    assert f"after {result.wall_time:.2f} s" in result.detail


def test_interrupts_by_other_cancels_are_never_a_timeout(tmp_path):
    # Another grading's Cancel pushes the shared epoch past every deadline, again and again,
    # long before this case's own 60 s deadline.
    wat = module_with_run_body("(loop $forever (br $forever)) (i64.const 0)")
    done = threading.Event()

    def cancel_others() -> None:
        while not done.wait(0.05):
            engine.interrupt_all(60)

    thread = threading.Thread(target=cancel_others, daemon=True)
    thread.start()
    try:
        result = first(tmp_path, wat, fuel_limit=10**15, sandbox="wall_clock_s = 60")
    finally:
        done.set()
        thread.join()
    assert result.outcome is Outcome.INTERNAL_ERROR
    assert "interrupted" in result.detail and "before its" in result.detail
