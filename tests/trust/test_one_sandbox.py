"""Issue 9 item 1: every call into untrusted wasm goes through the grader's sandbox.

The Factory tab's submission records (and Diff) and `scenario expect/check --engine` used
their own copies of the packed call without the table limit, the import policy or a time
bound; these tests run those paths with hostile modules."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import wasmtime

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.submission_records import open_submission, submission_records
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES
from tests.core.wat_cases import write_submission

SCENARIO = (CASES / "lattice" / "smoke" / "straight_belt.lat").read_bytes()

# A records export that grows a table by 20 million elements (the grader allows 1,000,000)
# and, when the growth is granted, returns an empty (valid) record list.
TABLE_BOMB = """
(module (memory (export "memory") 1)
 (table $t 0 funcref)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func (export "lattice_run") (param i32 i32) (result i64) i64.const 0)
 (func (export "lattice_records") (param i32 i32 i64) (result i64)
   (if (i32.eq (table.grow $t (ref.null func) (i32.const 20000000)) (i32.const -1))
     (then unreachable))
   i64.const 0))
"""


def _records(tmp_path, wat: str, tick: int = 3) -> dict[int, int]:
    case = load_case(CASES / "lattice")
    sub = open_submission(str(write_submission(tmp_path / "sub", wat)), case, case.smoke[0].name)
    assert not isinstance(sub, str), sub
    return submission_records(sub, SCENARIO, tick)


def test_records_export_cannot_grow_a_table_past_the_grader_limit(tmp_path):
    with pytest.raises(UserError, match="unreachable"):
        _records(tmp_path, TABLE_BOMB)


@pytest.mark.slow
def test_records_export_that_loops_is_stopped_by_fuel(tmp_path):
    wat = TABLE_BOMB.replace(
        "(if (i32.eq (table.grow $t (ref.null func) (i32.const 20000000)) (i32.const -1))\n"
        "     (then unreachable))",
        "(loop $l (br $l))",
    )
    with pytest.raises(UserError, match=r"out_of_fuel|out of fuel"):
        _records(tmp_path, wat)


def test_records_export_with_an_import_is_refused(tmp_path):
    wat = TABLE_BOMB.replace("(memory (export", '(import "env" "f" (func))\n (memory (export')
    case = load_case(CASES / "lattice")
    with pytest.raises(UserError) as raised:  # refused on opening (or, failing that, on running)
        sub = open_submission(str(write_submission(tmp_path / "sub", wat)), case, case.smoke[0].name)
        submission_records(sub, SCENARIO, 3)
    assert "imports env.f" in str(raised.value)


def test_records_output_over_the_limit_is_refused(tmp_path):
    wat = TABLE_BOMB.replace(
        "(if (i32.eq (table.grow $t (ref.null func) (i32.const 20000000)) (i32.const -1))\n"
        "     (then unreachable))\n   i64.const 0",
        "i64.const 0x7fffffff",
    )
    with pytest.raises(UserError, match=r"over the .* limit"):
        _records(tmp_path, wat)


def test_there_is_one_packed_call():
    """The (ptr << 32 | len) unpacking lives in sandbox/guest.py only (the case kit's C
    template says it to a case's authors, in a comment: it unpacks nothing)."""
    from pathlib import Path

    import lattice_desktop

    root = Path(lattice_desktop.__file__).parent
    holders = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if any(">> 32" in line and not line.lstrip().startswith("*") for line in p.read_text().splitlines())
    )
    assert holders == ["sandbox/guest.py"]


def _scenario_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lattice_desktop.cli.main", "scenario", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _engine(tmp_path, wat: str):
    path = tmp_path / "engine.wasm"
    path.write_bytes(bytes(wasmtime.wat2wasm(wat)))
    scenario = tmp_path / "s.lat"
    scenario.write_bytes(SCENARIO)
    return path, scenario


ENGINE_BODIES = {
    "imports": ('(import "env" "f" (func))', "i64.const 0", "imports env.f"),
    "missing export": ("", None, "does not export 'lattice_run'"),
    "trap": ("", "unreachable", "unreachable"),
    "loop": ("", "(loop $l (br $l)) i64.const 0", "did not finish within 2 s"),
}


@pytest.mark.parametrize("kind", list(ENGINE_BODIES))
@pytest.mark.parametrize("action", ["expect", "check"])
def test_scenario_engine_hostile_modules_end_clearly(tmp_path, kind, action):
    head, body, message = ENGINE_BODIES[kind]
    run = "" if body is None else f'(func (export "lattice_run") (param i32 i32) (result i64) {body})'
    wat = f"""(module {head} (memory (export "memory") 1)
      (func (export "alloc") (param i32) (result i32) i32.const 1024) {run})"""
    engine, scenario = _engine(tmp_path, wat)
    if action == "check":
        scenario.with_suffix(".u64").write_bytes(b"\0" * 8)
    done = _scenario_cli(action, str(scenario), "--engine", str(engine), "--timeout", "2")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(message, done.stderr), done.stderr


def test_scenario_expect_with_the_bundled_engine_is_bounded(tmp_path):
    scenario = tmp_path / "long.lat"
    text = re.sub(r"(?m)^ticks \d+", "ticks 1000000000", SCENARIO.decode())
    scenario.write_text(re.sub(r"(?m)^snapshot \d+", "snapshot 1000000", text))
    done = _scenario_cli("expect", str(scenario), "--timeout", "2")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--timeout" in done.stderr and "Traceback" not in done.stderr
