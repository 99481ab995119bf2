"""Every outcome the grader can give, each produced by a real module run by wasmtime."""

from __future__ import annotations

import struct

import pytest
import wasmtime

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from tests.core.wat_cases import (
    ECHO,
    ECHO_CASES,
    SLOW_ECHO,
    module_with_run_body,
    u64s,
    write_case,
    write_submission,
)

RETURN_INPUT = """(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
                         (i64.extend_i32_u (local.get 1)))"""


def run(tmp_path, wat, cases=ECHO_CASES, **case_options):
    case = load_case(write_case(tmp_path / "case", cases, **case_options))
    sub = load_submission(write_submission(tmp_path / "sub", wat))
    return grade(case, sub, workers=2)


def outcomes(report) -> dict[str, Outcome]:
    return {r.name: r.outcome for r in report.results}


def test_correct_run_scores_its_stress_fuel(tmp_path):
    report = run(tmp_path, ECHO)
    assert report.verdict is Verdict.CORRECT
    assert outcomes(report) == {"hello": Outcome.PASS, "longer": Outcome.PASS}
    stress = report.results[1]
    assert stress.fuel and stress.fuel > 0
    assert report.score == stress.fuel  # the score is the stress fuel, smoke fuel excluded


def test_correct_only_on_the_runway_is_over_ceiling_with_overshoot(tmp_path):
    # SLOW_ECHO burns ~5 fuel per loop turn, 100 turns per input byte: ~15k for 30 bytes.
    report = run(tmp_path, SLOW_ECHO, fuel_limit=10_000)
    stress = report.results[1]
    assert stress.outcome is Outcome.OVER_CEILING
    assert stress.fuel > 10_000 and stress.overshoot == stress.fuel - 10_000
    assert f"{100 * stress.overshoot / 10_000:.1f}%" in stress.detail
    assert report.verdict is Verdict.OVER_CEILING
    assert report.score is None and report.overshoot == stress.overshoot


def test_exhausting_the_runway_is_out_of_fuel(tmp_path):
    # The smoke test (~4k fuel) fits; the stress case (~24k) does not fit even 4 x 5k.
    report = run(tmp_path, SLOW_ECHO, fuel_limit=5_000)
    stress = report.results[1]
    assert stress.outcome is Outcome.OUT_OF_FUEL
    assert stress.fuel == 20_000  # ceiling x runway
    assert report.verdict is Verdict.INCORRECT


def test_smoke_tests_are_graded_on_correctness_alone(tmp_path):
    # The smoke test needs ~4k fuel, over the 1k ceiling; within its runway it passes.
    cases = ECHO_CASES.replace('expected = "hello"', 'expected = "hello"\nfuel_runway = 5')
    report = run(tmp_path, SLOW_ECHO, fuel_limit=1_000, cases=cases)
    assert report.results[0].outcome is Outcome.PASS
    assert report.results[0].fuel > 1_000


def test_wrong_answer_names_the_first_differing_byte(tmp_path):
    wat = module_with_run_body(
        f"(i32.store8 (i32.add (local.get 0) (i32.const 1)) (i32.const 88)) {RETURN_INPUT}"
    )
    report = run(tmp_path, wat)
    smoke = report.results[0]
    assert smoke.outcome is Outcome.WRONG_ANSWER
    assert smoke.mismatch.index == 1 and smoke.mismatch.expected == ord("e") and smoke.mismatch.got == 88
    assert "byte 1" in smoke.detail


def test_any_smoke_failure_skips_every_stress_case(tmp_path):
    wat = module_with_run_body("(i64.const 0)")  # returns an empty output
    report = run(tmp_path, wat)
    assert outcomes(report) == {"hello": Outcome.WRONG_ANSWER, "longer": Outcome.SKIPPED}
    assert "smoke test failed (hello)" in report.results[1].detail
    assert report.results[1].fuel is None  # it never ran
    assert report.verdict is Verdict.INCORRECT


def test_checksum_mismatch_reports_snapshot_tick_and_both_values(tmp_path):
    # Output three u64s; expected differs at index 1. The lattice family gives the tick.
    data = struct.pack("<3Q", 7, 8, 9)
    hex_data = "".join(f"\\{b:02x}" for b in data)
    wat = f"""(module (memory (export "memory") 1) (data (i32.const 64) "{hex_data}")
      (func (export "alloc") (param i32) (result i32) i32.const 1024)
      (func (export "run") (param i32 i32) (result i64) (i64.or (i64.shl (i64.const 64) (i64.const 32)) (i64.const 24))))"""
    cases = """
[[case]]
name = "snap"
kind = "smoke"
behaviour = "three snapshots"
input = "lattice 1\\nsize 1 1\\nticks 30\\nsnapshot 10\\ngrid\\n.\\n"
expected = [7, 99, 9]
"""
    report = run(
        tmp_path,
        wat,
        cases=cases,
        contract='abi = "bytes"\nentry = "run"\noutput = "u64-list"',
        meta='name = "snap"\nversion = 1\nfamily = "lattice-v1"',
    )
    result = report.results[0]
    assert result.outcome is Outcome.WRONG_ANSWER
    m = result.mismatch
    assert (m.unit, m.index, m.tick, m.expected, m.got) == ("snapshot", 1, 20, 99, 8)
    assert "snapshot 2 · tick 20" in result.detail  # numbered from 1 for people
    assert result.checksums == u64s(7, 8, 9)


def test_trap_reports_code_and_wasm_backtrace(tmp_path):
    wat = module_with_run_body("(call $boom) (i64.const 0)", extra="(func $boom unreachable)")
    result = run(tmp_path, wat).results[0]
    assert result.outcome is Outcome.TRAP
    assert result.trap_code == "unreachable"
    assert result.frames and result.frames[0].startswith("boom")
    assert "unreachable" in result.detail


def test_division_by_zero_trap(tmp_path):
    wat = module_with_run_body(
        "(drop (i32.div_u (i32.const 1) (i32.sub (local.get 1) (local.get 1)))) (i64.const 0)"
    )
    result = run(tmp_path, wat).results[0]
    assert result.outcome is Outcome.TRAP and result.trap_code == "integer_division_by_zero"


def test_memory_limit(tmp_path):
    # Grow until memory.grow fails (it returns -1 at the limit), then touch past the end.
    body = """(block $full (loop $grow
                (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
                (br $grow)))
              (i32.store (i32.mul (memory.size) (i32.const 65536)) (i32.const 1))
              (i64.const 0)"""
    result = run(
        tmp_path, module_with_run_body(body), sandbox="memory_limit_mib = 4\nwall_clock_s = 20"
    ).results[0]
    assert result.outcome is Outcome.MEMORY_LIMIT
    assert "4 MiB" in result.detail


def test_wall_clock_backstop_stops_a_runaway_module(tmp_path):
    wat = module_with_run_body("(loop $forever (br $forever)) (i64.const 0)")
    result = run(tmp_path, wat, fuel_limit=10**15, sandbox="wall_clock_s = 0.5").results[0]
    assert result.outcome is Outcome.TIMEOUT
    assert result.trap_code == "interrupt"
    assert 0.4 < result.wall_time < 5


def test_missing_export(tmp_path):
    wat = '(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) i32.const 0))'
    report = run(tmp_path, wat)
    assert outcomes(report) == {"hello": Outcome.MISSING_EXPORT, "longer": Outcome.SKIPPED}
    assert "does not export 'run'" in report.results[0].detail


def test_wrong_entry_signature_is_a_link_error(tmp_path):
    wat = module_with_run_body("(i64.const 0)").replace(
        "(param i32 i32) (result i64)", "(param i32) (result i64)"
    )
    result = run(tmp_path, wat.replace("(i64.const 0)", "(drop (local.get 0)) (i64.const 0)")).results[0]
    assert result.outcome is Outcome.LINK_ERROR
    assert "(i32) -> (i64)" in result.detail


def test_imports_are_rejected_by_name(tmp_path):
    wat = ECHO.replace(
        "(module",
        '(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))',
        1,
    )
    result = run(tmp_path, wat).results[0]
    assert result.outcome is Outcome.LINK_ERROR
    assert "wasi_snapshot_preview1.fd_write (function)" in result.detail


def test_bytes_that_are_not_wasm_are_an_invalid_module(tmp_path):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    folder = write_submission(tmp_path / "sub", ECHO)
    (folder / "module.wasm").write_bytes(b"\0asm\x01\0\0\0garbage")
    report = grade(case, load_submission(folder))
    assert report.results[0].outcome is Outcome.INVALID_MODULE
    assert "not a valid WebAssembly module" in report.results[0].detail
    (folder / "module.wasm").write_bytes(b"MZ not wasm at all")
    report = grade(case, load_submission(folder))
    assert "no \\0asm header" in report.results[0].detail


def test_failing_build_keeps_its_log(tmp_path):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "submission.toml").write_text(
        '[submission]\nmodel = "m"\n[build]\ncommands = ["echo compiling; echo oops >&2; exit 3"]\nmodule = "m.wasm"\n'
    )
    report = grade(case, load_submission(folder), allow_build=True, allow_unisolated=True)
    assert report.results[0].outcome is Outcome.BUILD_FAILURE
    assert "exited with status 3" in report.results[0].detail
    assert "compiling" in report.build.log and "oops" in report.build.log


def test_build_commands_never_run_without_permission(tmp_path):
    from lattice_desktop.errors import UserError

    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    folder = write_submission(tmp_path / "sub", ECHO, build=True)
    with pytest.raises(UserError, match="only when you allow it"):
        grade(case, load_submission(folder), allow_build=False)
    assert not (folder / "module.wasm").exists()
    report = grade(case, load_submission(folder), allow_build=True, allow_unisolated=True)
    assert report.verdict is Verdict.CORRECT
    assert not (folder / "module.wasm").exists()  # built in a scratch copy, not in place


def test_instantiation_failure_from_a_trapping_start_function(tmp_path):
    wat = ECHO.replace("(module", "(module (start $init) (func $init unreachable)", 1)
    result = run(tmp_path, wat).results[0]
    assert result.outcome is Outcome.INSTANTIATION_FAILURE
    assert result.trap_code == "unreachable"


def test_start_function_fuel_is_counted(tmp_path):
    spin = "(func $init (local $i i32) (local.set $i (i32.const 1000)) (block $d (loop $l (br_if $d (i32.eqz (local.get $i))) (local.set $i (i32.sub (local.get $i) (i32.const 1))) (br $l))))"
    plain = run(tmp_path / "a", ECHO).results[0].fuel
    started = run(tmp_path / "b", ECHO.replace("(module", f"(module (start $init) {spin}", 1)).results[0].fuel
    assert started - plain >= 1000


def test_out_of_bounds_output_is_a_contract_violation_not_a_crash(tmp_path):
    wat = module_with_run_body("(i64.const 0x7fff000000000010)")  # ptr 0x7fff0000, len 16
    result = run(tmp_path, wat).results[0]
    assert result.outcome is Outcome.CONTRACT_VIOLATION
    assert "outside memory" in result.detail
    huge = module_with_run_body("(i64.const 0x00000000ffffffff)")  # a 4 GiB output
    result = run(tmp_path / "huge", huge).results[0]
    assert result.outcome is Outcome.WRONG_ANSWER and "over the" in result.detail


def test_missing_case_file_is_an_internal_error_not_the_submissions_fault(tmp_path):
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "in.txt").write_text("hello")
    path = write_case(tmp_path / "case", ECHO_CASES.replace('input = "hello"', 'input_file = "in.txt"'))
    case = load_case(path)
    (tmp_path / "case" / "in.txt").unlink()
    report = grade(case, load_submission(write_submission(tmp_path / "sub", ECHO)))
    assert report.results[0].outcome is Outcome.INTERNAL_ERROR
    assert report.verdict is Verdict.INTERNAL_ERROR


def test_scalar_abi(tmp_path):
    wat = '(module (func (export "add") (param i64 i64) (result i64) (i64.add (local.get 0) (local.get 1))))'
    contract = 'abi = "scalar"\nentry = "add"\nparams = ["i64", "i64"]\nresults = ["i64"]'
    cases = """
[[case]]
name = "small"
kind = "smoke"
behaviour = "adds two numbers"
input = [2, 3]
expected = [5]

[[case]]
name = "negative"
kind = "stress"
input = [-7, 2]
expected = [-4]
"""
    report = run(tmp_path, wat, cases=cases, contract=contract)
    assert outcomes(report) == {"small": Outcome.PASS, "negative": Outcome.WRONG_ANSWER}
    assert report.results[1].mismatch.expected == -4 and report.results[1].mismatch.got == -5


def test_compiled_modules_are_cached_by_content(tmp_path):
    first = run(tmp_path / "a", ECHO)
    second = run(tmp_path / "b", ECHO)
    assert first.module_sha256 == second.module_sha256
    assert second.module_from_cache


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_fuel_is_identical_on_every_run_and_thread_count(tmp_path, workers):
    case = load_case(
        write_case(
            tmp_path / "case",
            ECHO_CASES + ECHO_CASES.replace('"hello"', '"h2"').replace('"longer"', '"l2"'),
            fuel_limit=10**6,
        )
    )
    sub = load_submission(write_submission(tmp_path / "sub", SLOW_ECHO))
    baseline = [r.fuel for r in grade(case, sub, workers=1).results]
    for _ in range(2):
        assert [r.fuel for r in grade(case, sub, workers=workers).results] == baseline
    assert len(set(baseline)) >= 2 and all(f > 0 for f in baseline)


def test_wat_helper_is_valid():
    wasmtime.wat2wasm(SLOW_ECHO)


def test_every_outcome_and_verdict_has_one_look_with_a_symbol_words_and_a_colour():
    import re

    for state in [*Outcome, *Verdict]:
        look = state.look
        assert look.symbol and look.words and re.fullmatch(r"#[0-9A-F]{6}", look.colour)
        assert look.text == f"{look.symbol} {look.words}" == f"{state.symbol} {state.label}"
    assert Outcome.stored("no such outcome") is Outcome.UNKNOWN and Outcome.stored("trap") is Outcome.TRAP
    assert Verdict.stored(None) is Verdict.UNKNOWN and Verdict.UNKNOWN not in Verdict.filters()
