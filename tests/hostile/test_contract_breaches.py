"""A module that breaks the calling convention, or runs out of memory and still returns,
is told so in its own words: never "wrong answer" for an answer it could not give."""

from __future__ import annotations

from lattice_desktop.cli.main import main
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome
from tests.core.wat_cases import ECHO, ECHO_CASES, module_with_run_body, write_case, write_submission

RETURN_INPUT = """(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
                         (i64.extend_i32_u (local.get 1)))"""


def first(tmp_path, wat, **case_options):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, **case_options))
    return grade(case, load_submission(write_submission(tmp_path / "sub", wat)), workers=1).results[0]


def test_alloc_returning_a_pointer_outside_memory_is_a_contract_violation(tmp_path):
    wat = ECHO.replace("i32.const 1024)", "i32.const 0xfffffff8)", 1)
    result = first(tmp_path, wat)
    assert result.outcome is Outcome.CONTRACT_VIOLATION
    assert "alloc(5) returned 0xfffffff8, outside memory" in result.detail


def test_an_output_pointer_outside_memory_is_a_contract_violation(tmp_path):
    result = first(tmp_path, module_with_run_body("(i64.const 0x7fff000000000010)"))
    assert result.outcome is Outcome.CONTRACT_VIOLATION
    assert "output 0x7fff0000+16 lies outside memory" in result.detail


def test_a_refused_memory_grow_is_a_memory_limit_not_a_wrong_answer(tmp_path):
    # Grow until memory.grow returns -1, then return an empty answer, as a C engine whose
    # malloc failed might.
    body = """(block $full (loop $grow
                (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
                (br $grow)))
              (i64.const 0)"""
    result = first(tmp_path, module_with_run_body(body), sandbox="memory_limit_mib = 4\nwall_clock_s = 20")
    assert result.outcome is Outcome.MEMORY_LIMIT
    assert "memory.grow was refused at the 4 MiB memory limit" in result.detail
    assert "expected" in result.detail  # the comparison is still shown


def test_a_wrong_answer_far_from_the_memory_limit_stays_a_wrong_answer(tmp_path):
    body = "(i64.const 0x0000040000000002)"  # two bytes at 1024: not the input
    result = first(tmp_path, module_with_run_body(body), sandbox="memory_limit_mib = 4\nwall_clock_s = 20")
    assert result.outcome is Outcome.WRONG_ANSWER


def test_the_cli_names_a_contract_violation(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    sub = write_submission(tmp_path / "sub", ECHO.replace("i32.const 1024)", "i32.const 0xfffffff8)", 1))
    assert main(["grade", str(sub), "--case", str(case), "--db", str(tmp_path / "db")]) == 1
    out = capsys.readouterr().out
    assert "contract violation" in out and "wrong answer" not in out
