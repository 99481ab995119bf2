"""`compare --fail-above` gates on stress fuel only: grading scores smoke tests on
correctness alone, so a smoke test that got slower is shown but fails no CI job, while a
smoke test that lost its verdict still does."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.compare_runs import compare_runs
from tests.core.wat_cases import module_with_run_body, write_case, write_submission
from tests.profile.test_cli import CASES


def _echo_spinning_on_short_inputs(spins: int) -> str:
    """Echo, burning `spins` loop turns first when the input is under 5 bytes (the smoke
    test's "ab"), so only the smoke test's fuel depends on `spins`."""
    return module_with_run_body(
        f"""(local $i i32)
   (local.set $i (select (i32.const {spins}) (i32.const 0) (i32.lt_u (local.get 1) (i32.const 5))))
   (block $done (loop $spin
     (br_if $done (i32.eqz (local.get $i)))
     (local.set $i (i32.sub (local.get $i) (i32.const 1)))
     (br $spin)))
   (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
           (i64.extend_i32_u (local.get 1)))"""
    )


@pytest.fixture
def smoke_slower(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    db = ["--db", str(tmp_path / "db")]
    ids = []
    for name, spins in (("quick", 0), ("slow-smoke", 500)):
        sub = write_submission(tmp_path / name, _echo_spinning_on_short_inputs(spins), model=name)
        assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
        ids.append(str(json.loads(capsys.readouterr().out)["run_id"]))
    return ids, db


def test_a_slower_smoke_test_is_shown_but_does_not_fail_the_gate(smoke_slower, capsys):
    (before, after), db = smoke_slower
    code = main(["compare", before, after, "--fail-above", "2", "--no-profile", "--json", *db])
    data = json.loads(capsys.readouterr().out)
    smoke = next(c for c in data["cases"] if c["kind"] == "smoke")
    assert smoke["percent"] > 100  # the smoke test got much slower, and the report says so
    assert all(c["delta"] == 0 for c in data["cases"] if c["kind"] == "stress")
    assert data["worse"] == [] and code == 0
    main(["compare", before, after, "--fail-above", "2", "--no-profile", *db])
    text = capsys.readouterr().out
    assert "small" in text and "not gated" in text and "ok: no stress case worse" in text


def test_a_smoke_test_that_lost_its_verdict_still_fails_the_gate(smoke_slower):
    (before, after), _ = smoke_slower
    comparison = compare_runs(int(before), int(after), writer=None, profile=False)
    smoke = next(c for c in comparison.cases if c.kind == "smoke")
    stress = next(c for c in comparison.cases if c.kind == "stress")
    assert smoke.percent is not None and smoke.percent > 100 and not smoke.worse_than(2.0)
    assert replace(smoke, after_outcome=Outcome.WRONG_ANSWER.value).worse_than(2.0)
    slower = replace(stress, after_fuel=2 * (stress.before_fuel or 0))
    assert slower.worse_than(2.0) and comparison.worse_than(2.0) == []
