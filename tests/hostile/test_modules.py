"""Hostile modules: each is run by the real grader and must end in a clear outcome, with
the Python process alive, its memory bounded, and nothing left running."""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap

import pytest
import wasmtime

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.sandbox import compiler
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from tests.core.wat_cases import ECHO, ECHO_CASES, module_with_run_body, write_case, write_submission
from tests.hostile.processes import descendants, scratch_folders

RETURN_INPUT = """(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
                         (i64.extend_i32_u (local.get 1)))"""


def grade_wat(tmp_path, wat, cases=ECHO_CASES, **case_options):
    case = load_case(write_case(tmp_path / "case", cases, **case_options))
    return grade(case, load_submission(write_submission(tmp_path / "sub", wat)), workers=2)


def smoke(report):
    return report.results[0]


def test_infinite_loop_runs_out_of_fuel_not_time(tmp_path):
    wat = module_with_run_body("(loop $forever (br $forever)) (i64.const 0)")
    report = grade_wat(tmp_path, wat, fuel_limit=2_000_000)
    assert smoke(report).outcome is Outcome.OUT_OF_FUEL
    assert smoke(report).fuel == 2_000_000
    assert report.results[1].outcome is Outcome.SKIPPED


def test_memory_grow_bomb_stops_at_the_memory_limit(tmp_path):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    body = """(block $full (loop $grow
                (br_if $full (i32.eq (memory.grow (i32.const 16)) (i32.const -1)))
                (i32.store (i32.mul (i32.sub (memory.size) (i32.const 1)) (i32.const 65536)) (i32.const 1))
                (br $grow)))
              unreachable"""
    result = smoke(
        grade_wat(tmp_path, module_with_run_body(body), sandbox="memory_limit_mib = 32\nwall_clock_s = 20")
    )
    assert result.outcome is Outcome.MEMORY_LIMIT
    assert "32 MiB memory limit" in result.detail
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200 * 1024  # the store never held more than its limit (plus noise)


def test_memory_grow_bomb_in_big_steps_is_bounded_and_explained(tmp_path):
    body = """(block $full (loop $grow
                (br_if $full (i32.eq (memory.grow (i32.const 256)) (i32.const -1)))
                (br $grow)))
              unreachable"""
    result = smoke(
        grade_wat(tmp_path, module_with_run_body(body), sandbox="memory_limit_mib = 32\nwall_clock_s = 20")
    )
    # 16 MiB in use when the next 16 MiB step was refused: the re-run with more memory
    # shows the refusal, and the memory in use is named.
    assert result.outcome is Outcome.MEMORY_LIMIT and result.trap_code == "unreachable"
    assert "memory.grow was refused at the 32 MiB memory limit" in result.detail
    assert "16.1 MiB of the 32 MiB memory limit in use" in result.detail


def test_a_huge_initial_memory_is_refused_at_instantiation(tmp_path):
    wat = ECHO.replace('(memory (export "memory") 1)', '(memory (export "memory") 65536)')
    result = smoke(grade_wat(tmp_path, wat, sandbox="memory_limit_mib = 64\nwall_clock_s = 20"))
    assert result.outcome is Outcome.MEMORY_LIMIT
    assert "instantiation failed" in result.detail


def test_deep_recursion_is_a_clean_stack_overflow(tmp_path):
    wat = module_with_run_body(
        "(drop (call $down (i32.const 0))) (i64.const 0)",
        extra="(func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))",
    )
    result = smoke(grade_wat(tmp_path, wat, fuel_limit=10**9))
    assert result.outcome is Outcome.TRAP and result.trap_code == "stack_overflow"
    assert result.frames and result.frames[0].startswith("down")


SMALL_STACK_RECURSION = textwrap.dedent("""
    import sys, threading
    from tests.hostile.test_modules import run_recursion_on_small_stack
    print(run_recursion_on_small_stack(sys.argv[1]))
""")


def run_recursion_on_small_stack(folder: str) -> str:
    """Run the recursion case on a 1 MiB thread: without the guard this is a SIGSEGV."""
    import threading
    from pathlib import Path

    case = load_case(Path(folder) / "case")
    compiled = compile_module(
        load_submission(Path(folder) / "sub").module_path.read_bytes(), max_bytes=2**20, timeout=60
    )
    from lattice_desktop.sandbox.runner import execute

    out: list[str] = []

    def work() -> None:
        entry = case.smoke[0]
        run = execute(compiled.module, case.contract, case.sandbox, entry, budget=case.budget(entry))
        out.append(f"{run.outcome} {run.trap_code}")

    previous = threading.stack_size(1024 * 1024)
    thread = threading.Thread(target=work)
    thread.start()
    threading.stack_size(previous)
    thread.join()
    return out[0]


def test_deep_recursion_on_a_small_thread_stack_does_not_kill_the_process(tmp_path):
    wat = module_with_run_body(
        "(drop (call $down (i32.const 0))) (i64.const 0)",
        extra="(func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))",
    )
    write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10**9)
    write_submission(tmp_path / "sub", wat)
    done = subprocess.run(
        [sys.executable, "-c", SMALL_STACK_RECURSION, str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]  # -11 would be the SIGSEGV
    assert done.stdout.strip() == "trap stack_overflow"


def test_table_grow_bomb_is_refused_past_the_element_limit(tmp_path):
    body = """(block $full (loop $grow
                (br_if $full (i32.eq (table.grow $t (ref.null func) (i32.const 100000)) (i32.const -1)))
                (br $grow)))
              unreachable"""
    wat = module_with_run_body(body, extra="(table $t 0 funcref)")
    result = smoke(grade_wat(tmp_path, wat, fuel_limit=10**9))
    assert result.outcome is Outcome.TRAP and result.trap_code == "unreachable"  # grow said -1


def test_a_huge_initial_table_is_an_instantiation_failure(tmp_path):
    wat = module_with_run_body(RETURN_INPUT, extra="(table 100000000 funcref)")
    result = smoke(grade_wat(tmp_path, wat))
    assert result.outcome is Outcome.INSTANTIATION_FAILURE
    assert "table" in result.detail


def many_functions(count: int, ops: int) -> bytes:
    body = "(local.get 0) " + "(i32.const 7) (i32.add) " * ops
    funcs = "".join(f"(func (param i32) (result i32) {body})" for _ in range(count))
    return bytes(wasmtime.wat2wasm(f"(module {funcs})"))


def test_compile_bomb_is_stopped_at_the_compile_time_limit(private_tmp):
    bomb = many_functions(3000, 100)  # ~1 MB; takes 5-10 s to compile here
    with pytest.raises(CompileError, match="longer than 1 s"):
        compile_module(bomb, max_bytes=8 * 2**20, timeout=1.0)
    assert descendants() == []  # the compile child is gone
    assert scratch_folders(private_tmp) == []


def test_compile_bomb_is_stopped_at_the_compile_memory_limit(monkeypatch, private_tmp):
    monkeypatch.setattr(compiler, "COMPILE_MEMORY_BASE", 24 * 2**20)
    monkeypatch.setattr(compiler, "COMPILE_MEMORY_PER_BYTE", 0)
    with pytest.raises(CompileError, match="more than 24 MiB of memory"):
        # ~1.8 MB: compiling it takes some 40 MB more than a trivial module's compile
        # (maximum RSS 66 MB against 26 MB). The 2,000-function bomb used before needed only
        # 13.5 MB more, within a few MB of the limit: a full suite run once compiled it whole.
        compile_module(many_functions(6000, 100), max_bytes=8 * 2**20, timeout=60)
    assert descendants() == []


def test_compile_memory_limit_grows_with_the_module_and_is_capped():
    assert compiler.compile_memory_limit(0) == compiler.COMPILE_MEMORY_BASE
    assert compiler.compile_memory_limit(2**20) > compiler.compile_memory_limit(0)
    assert compiler.compile_memory_limit(2**40) == compiler.COMPILE_MEMORY


def test_a_module_over_the_size_limit_is_refused_before_compiling(tmp_path):
    case = load_case(
        write_case(tmp_path / "case", ECHO_CASES, sandbox="max_module_mib = 1\nwall_clock_s = 20")
    )
    folder = write_submission(tmp_path / "sub", ECHO)
    oversized = b"\0asm\x01\0\0\0" + b"\0" * (2**20 + 1)
    (folder / "module.wasm").write_bytes(oversized)
    result = smoke(grade(case, load_submission(folder)))
    assert result.outcome is Outcome.BUILD_FAILURE  # refused while loading, never compiled
    assert "the case allows 1,048,576" in result.detail
    with pytest.raises(CompileError, match="the case allows 1,048,576"):
        compile_module(oversized, max_bytes=2**20, timeout=60)


TRAPS = {
    "unreachable": "unreachable",
    "integer_overflow": "(drop (i32.div_s (i32.const 0x80000000) (i32.sub (local.get 1) (i32.add (local.get 1) (i32.const 1)))))",
    "integer_division_by_zero": "(drop (i32.rem_u (i32.const 1) (i32.sub (local.get 1) (local.get 1))))",
    "bad_conversion_to_integer": "(drop (i32.trunc_f32_s (f32.div (f32.const 0) (f32.const 0))))",
    "memory_out_of_bounds": "(drop (i32.load (i32.const 0x7ffffff0)))",
    "bad_signature": "(drop (call_indirect (type $other) (i32.const 0)))",
    "indirect_call_to_null": "(call_indirect (type $void) (i32.const 1))",
    "stack_overflow": "(drop (call $down (i32.const 0)))",
    "uncaught_exception": "(throw $oops)",
}
TRAP_EXTRA = """
 (type $void (func)) (type $other (func (result f64)))
 (table 2 funcref) (elem (i32.const 0) $void_fn)
 (func $void_fn)
 (tag $oops)
 (func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))
"""


@pytest.mark.parametrize("code", sorted(TRAPS))
def test_every_trap_kind_is_a_trap_with_its_code(tmp_path, code):
    wat = module_with_run_body(f"{TRAPS[code]} (i64.const 0)", extra=TRAP_EXTRA)
    result = smoke(grade_wat(tmp_path, wat, fuel_limit=10**9))
    assert result.outcome is Outcome.TRAP
    assert result.trap_code == code
    assert code in result.detail


@pytest.mark.parametrize(
    "packed, why",
    [
        ("0x7fff000000000010", "outside memory"),  # ptr far past the end
        ("0x00000000ffffffff", "over the"),  # a 4 GiB output
        ("0xffffffffffffffff", "over the"),  # ptr and len both at their maximum
        ("0xfffffff000000020", "outside memory"),  # ptr + len past 4 GiB
    ],
)
def test_out_of_bounds_and_huge_outputs_are_refused(tmp_path, packed, why):
    result = smoke(grade_wat(tmp_path, module_with_run_body(f"(i64.const {packed})")))
    breach = Outcome.CONTRACT_VIOLATION if why == "outside memory" else Outcome.WRONG_ANSWER
    assert result.outcome is breach and why in result.detail


@pytest.mark.parametrize(
    "imported",
    [
        '(import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))',
        '(import "env" "memory" (memory 1))',
        '(import "env" "table" (table 1 funcref))',
        '(import "env" "g" (global i32))',
    ],
)
def test_imports_of_host_functions_are_a_link_error(tmp_path, imported):
    wat = ECHO.replace("(module", f"(module {imported}", 1)
    if "memory" in imported:
        wat = wat.replace('(memory (export "memory") 1)', '(export "memory" (memory 0))')
    result = smoke(grade_wat(tmp_path, wat))
    assert result.outcome is Outcome.LINK_ERROR and "the grader offers no imports" in result.detail


def test_endless_start_function_runs_out_of_fuel(tmp_path):
    wat = ECHO.replace("(module", "(module (start $init) (func $init (loop $l (br $l)))", 1)
    result = smoke(grade_wat(tmp_path, wat, fuel_limit=1_000_000))
    assert result.outcome is Outcome.OUT_OF_FUEL


def test_endless_start_function_with_unlimited_fuel_hits_the_wall_clock(tmp_path):
    wat = ECHO.replace("(module", "(module (start $init) (func $init (loop $l (br $l)))", 1)
    result = smoke(grade_wat(tmp_path, wat, fuel_limit=10**15, sandbox="wall_clock_s = 0.3"))
    assert result.outcome is Outcome.TIMEOUT


@pytest.mark.parametrize(
    "data, why",
    [
        (b"", "no \\0asm header"),
        (b"MZ\x90\x00 a windows program", "no \\0asm header"),
        (b"(module)", "no \\0asm header"),  # text, not binary
        (b"\0asm\x01\0\0\0\x01\xff\xff\xff\xff\x0f", "not a valid WebAssembly module"),  # truncated
        (b"\0asm\x0d\0\x01\0", "not a valid WebAssembly module"),  # a component, not a module
        (b"\0asm" + bytes(range(256)) * 64, "not a valid WebAssembly module"),
    ],
)
def test_bytes_that_are_not_a_wasm_module_are_an_invalid_module(tmp_path, data, why):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    folder = write_submission(tmp_path / "sub", ECHO)
    (folder / "module.wasm").write_bytes(data)
    result = smoke(grade(case, load_submission(folder)))
    assert result.outcome is Outcome.INVALID_MODULE and why in result.detail


def test_shared_memory_and_atomic_wait_cannot_block_a_worker(tmp_path):
    shared = ECHO.replace('(memory (export "memory") 1)', '(memory (export "memory") 1 1 shared)')
    result = smoke(grade_wat(tmp_path / "shared", shared))
    assert result.outcome in (Outcome.INVALID_MODULE, Outcome.INSTANTIATION_FAILURE)
    wait = module_with_run_body(
        "(drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))) (i64.const 0)"
    )
    result = smoke(grade_wat(tmp_path / "wait", wait))
    assert result.outcome is Outcome.TRAP and result.trap_code == "atomic_wait_non_shared_memory"


def test_gc_heap_bomb_is_bounded(tmp_path):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    body = """(local $keep (ref null $many)) (local $i i32)
              (local.set $keep (array.new_default $many (i32.const 1000)))
              (loop $l
                (array.set $many (local.get $keep) (local.get $i) (array.new_default $bytes (i32.const 0x1000000)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))
              (i64.const 0)"""
    wat = module_with_run_body(
        body, extra="(type $bytes (array (mut i8))) (type $many (array (mut (ref null $bytes))))"
    )
    result = smoke(
        grade_wat(tmp_path, wat, fuel_limit=10**9, sandbox="memory_limit_mib = 32\nwall_clock_s = 20")
    )
    assert result.outcome is Outcome.MEMORY_LIMIT and "GC heap out of memory" in result.detail
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 512 * 1024


def test_a_module_that_passes_smoke_and_misbehaves_on_stress(tmp_path):
    # Echo inputs shorter than 10 bytes; on longer ones, a different bomb per stress case.
    body = f"""(if (i32.ge_u (local.get 1) (i32.const 10)) (then
                 (if (i32.eq (i32.load8_u (local.get 0)) (i32.const 108)) (then (loop $l (br $l))))
                 (if (i32.eq (i32.load8_u (local.get 0)) (i32.const 109)) (then
                   (block $full (loop $g (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1))) (br $g)))
                   unreachable))
                 (if (i32.eq (i32.load8_u (local.get 0)) (i32.const 119)) (then
                   (return (i64.const 0x0000000000000003))))))
              {RETURN_INPUT}"""
    cases = """
[[case]]
name = "short"
kind = "smoke"
behaviour = "echoes a short input"
input = "hi"
expected = "hi"

[[case]]
name = "loop"
kind = "stress"
input = "loop forever please"
expected = "loop forever please"

[[case]]
name = "memory"
kind = "stress"
input = "memory bomb please"
expected = "memory bomb please"

[[case]]
name = "wrong"
kind = "stress"
input = "wrong answer please"
expected = "wrong answer please"

[[case]]
name = "fine"
kind = "stress"
input = "a fine long input"
expected = "a fine long input"
"""
    report = grade_wat(
        tmp_path,
        module_with_run_body(body),
        cases=cases,
        fuel_limit=1_000_000,
        sandbox="memory_limit_mib = 16\nwall_clock_s = 20",
    )
    outcomes = {r.name: r.outcome for r in report.results}
    assert outcomes == {
        "short": Outcome.PASS,
        "loop": Outcome.OUT_OF_FUEL,
        "memory": Outcome.MEMORY_LIMIT,
        "wrong": Outcome.WRONG_ANSWER,
        "fine": Outcome.PASS,
    }
    assert report.verdict is Verdict.INCORRECT and report.score is None
