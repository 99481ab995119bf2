"""The profiler is bounded like grading: a module past what the case allows is refused with
its reason before the costly steps run; an instrumented run that ends otherwise than the graded
run is refused and never stored; any function name survives; the line estimate the bounds rely
on is an upper bound. (Time linear in the module: benchmarks/profile_instrument.py.)"""

from __future__ import annotations

import json

import pytest
import wasmtime

from lattice_desktop.cli.main import main
from lattice_desktop.lattice.build_engines import SUBMISSIONS_DIR
from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile import instrument as instrument_module
from lattice_desktop.profile import wat_tools
from lattice_desktop.profile.bounds import Bounds, TooLarge, instrumented_size
from lattice_desktop.profile.instrument import instrument
from lattice_desktop.profile.run import ProfileRefused, profile_case
from lattice_desktop.profile.wasm_sections import shape, without_custom
from lattice_desktop.profile.wat_module import parse
from lattice_desktop.store.database import open_database
from lattice_desktop.store.profiles import ProfileRecord
from tests.core.wat_cases import module_with_run_body, write_case, write_submission
from tests.profile.control_flow import CONTROL_FLOW
from tests.profile.many_functions import many_functions_wat
from tests.profile.wat_profile import profile_and_count

ONE = '[[case]]\nname = "only"\nkind = "stress"\ninput = "ab"\nexpected = "ab"\n'
RETURN_INPUT = (
    "(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.extend_i32_u (local.get 1)))"
)


def _case(folder, sandbox: str):
    return load_case(write_case(folder, ONE, fuel_limit=50_000_000, sandbox=f"wall_clock_s = 20\n{sandbox}"))


def _no_work(monkeypatch):
    """Make every costly step fail the test: printing, encoding and writing the module."""

    def never(*args, **kwargs):
        raise AssertionError("work was spent on a module that should have been refused first")

    monkeypatch.setattr(wat_tools, "_run", never)
    monkeypatch.setattr(instrument_module.FunctionWriter, "function", never)


def test_too_many_functions_for_the_cases_compile_time_is_refused_before_printing(tmp_path, monkeypatch):
    case = _case(tmp_path, "compile_timeout_s = 1")
    bounds = Bounds.of(case.sandbox)
    wasm = bytes(wasmtime.wat2wasm(many_functions_wat(bounds.max_functions + 1)))
    assert shape(wasm).functions > bounds.max_functions
    _no_work(monkeypatch)
    with pytest.raises(ProfileRefused, match=f"defines {shape(wasm).functions:,} functions"):
        profile_case(wasm, case, case.entry("only"))


def test_an_instrumented_module_past_the_cases_module_size_is_refused_before_writing(tmp_path, monkeypatch):
    case = _case(tmp_path, "max_module_mib = 1")
    wasm = bytes(wasmtime.wat2wasm(many_functions_wat(3000)))
    assert len(wasm) < case.sandbox.max_module_bytes  # the module itself is allowed
    monkeypatch.setattr(instrument_module.FunctionWriter, "function", _fail)
    with pytest.raises(ProfileRefused, match="the case allows 1,048,576"):
        profile_case(wasm, case, case.entry("only"))


def _fail(*args, **kwargs):
    raise AssertionError("the instrumented text was written for a module that should have been refused")


def _indirect_everywhere(count: int) -> str:
    """`count` functions of one type in a table, each making an indirect call: the candidates
    an instrumented indirect call checks grow with the count, so its code with the square."""
    functions = "\n".join(
        f"(func $f{n} (param i32) (result i32) local.get 0 i32.const 0 call_indirect (type $t))"
        for n in range(count)
    )
    table = " ".join(f"$f{n}" for n in range(count))
    return module_with_run_body(
        f"(drop (call $f0 (i32.const 0))) {RETURN_INPUT}",
        extra=f"(type $t (func (param i32) (result i32))) (table {count} funcref) "
        f"(elem (i32.const 0) func {table}) {functions}",
    )


def test_indirect_calls_whose_checks_grow_with_the_square_are_refused_before_writing(tmp_path, monkeypatch):
    case = _case(tmp_path, "max_module_mib = 1")
    wasm = bytes(wasmtime.wat2wasm(_indirect_everywhere(300)))
    lines = instrumented_size(parse(wat_tools.print_module(without_custom(wasm))))
    assert lines * 5 > case.sandbox.max_module_bytes > 100 * len(wasm)
    monkeypatch.setattr(instrument_module.FunctionWriter, "function", _fail)
    with pytest.raises(ProfileRefused, match=f"{lines:,} lines"):
        profile_case(wasm, case, case.entry("only"))


def test_reading_a_module_past_the_memory_allowed_is_refused_before_printing(monkeypatch):
    wasm = bytes(wasmtime.wat2wasm(many_functions_wat(200)))
    _no_work(monkeypatch)
    with pytest.raises(TooLarge, match="MiB"):
        instrument(wasm, bounds=Bounds(1 << 26, 10_000, memory=shape(wasm).code_bytes))


@pytest.mark.parametrize("name", ["control_flow", "many_functions", "lines", "reference", "indirect"])
def test_the_line_estimate_is_an_upper_bound_of_what_is_written(name):
    wats = {
        "control_flow": CONTROL_FLOW,
        "many_functions": many_functions_wat(50),
        "indirect": _indirect_everywhere(20),
    }
    if name in wats:
        wasm = bytes(wasmtime.wat2wasm(wats[name]))
    else:
        wasm = (SUBMISSIONS_DIR / name / "engine.wasm").read_bytes()
    estimate = instrumented_size(parse(wat_tools.print_module(without_custom(wasm))))
    written = instrument(wasm).text.count("\n")
    assert written <= estimate <= 3 * written


DOWN = (
    "(func $down (param i32) (result i32) local.get 0 i32.eqz if (result i32) i32.const 0 "
    "else local.get 0 i32.const 1 i32.sub call $down i32.const 1 i32.add end)"
)


def test_a_recursion_that_overflows_only_instrumented_is_refused_and_not_stored(tmp_path, capsys):
    # 40,000 frames fit the 2 MiB wasm stack of the original but not of the instrumented module.
    wat = module_with_run_body(f"(drop (call $down (i32.const 40000))) {RETURN_INPUT}", extra=DOWN)
    case = write_case(tmp_path / "case", ONE, fuel_limit=50_000_000)
    sub = write_submission(tmp_path / "sub", wat)
    db = ["--db", str(tmp_path / "db")]
    assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
    graded = json.loads(capsys.readouterr().out)  # exit 0: the graded run returned the answer
    assert main(["profile", str(graded["run_id"]), *db]) == 2
    err = capsys.readouterr().err
    assert "stack_overflow" in err and "where the graded run returned" in err
    database = open_database(db[1])
    try:
        assert ProfileRecord.select().count() == 0
    finally:
        database.close()


def test_a_run_that_traps_like_the_graded_run_is_still_profiled(tmp_path):
    wat = module_with_run_body(f"(drop (call $down (i32.const 1000000))) {RETURN_INPUT}", extra=DOWN)
    profile, counted = profile_and_count(tmp_path, wat)
    assert profile.outcome == "trap" and "stack" in profile.detail
    assert counted is not None and profile.attributed <= profile.total


NAMES = ['we(;0;)ird \\"q\\" \\u{202e}x', "a;;b", "(;", "tab\\09"]


@pytest.mark.parametrize("name", NAMES, ids=["comment", "line-comment", "open", "tab"])
def test_a_function_name_survives_whatever_it_holds(tmp_path, name):
    wat = module_with_run_body(
        f'(drop (call $"{name}" (i32.const 7))) {RETURN_INPUT}',
        extra=f'(func $"{name}" (param i32) (result i32) local.get 0 i32.const 1 i32.add)',
    )
    profile, counted = profile_and_count(tmp_path, wat)
    assert profile.total == counted == profile.attributed
    shown = {f.name for f in profile.functions if f.calls}
    expected = parse_name(name)
    assert expected in shown and "run" in shown


def _with_names(wasm: bytes, names: dict[int, bytes]) -> bytes:
    """`wasm` with a name section naming functions by raw bytes (valid UTF-8 or not)."""

    def leb(n: int) -> bytes:
        out = bytearray()
        while True:
            byte, n = n & 0x7F, n >> 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)

    entries = b"".join(leb(i) + leb(len(raw)) + raw for i, raw in sorted(names.items()))
    subsection = leb(len(names)) + entries
    payload = leb(4) + b"name" + b"\x01" + leb(len(subsection)) + subsection
    return without_custom(wasm) + b"\x00" + leb(len(payload)) + payload


def test_a_name_that_is_not_utf8_is_shown_with_replacement_characters(tmp_path):
    wat = module_with_run_body(
        f"(drop (call $f (i32.const 7))) {RETURN_INPUT}",
        extra="(func $f (param i32) (result i32) local.get 0)",
    )
    raw = b"first(;0;)" + b"\xff\xfe"
    wasm = _with_names(bytes(wasmtime.wat2wasm(wat)), {0: raw})
    profile = profile_case(wasm, _case(tmp_path, ""), load_case(tmp_path / "case.toml").entry("only"))
    assert profile.name_of(0) == raw.decode("utf-8", "replace")
    assert profile.name_of(2) == "run"  # exported: the name section names only function 0


def parse_name(escaped: str) -> str:
    """The name the WAT literal `escaped` stands for, decoded as the name section holds it."""
    from lattice_desktop.profile.wat_module import wat_string

    return wat_string(f'"{escaped}"')
