"""`grade --junit FILE --markdown FILE`: every case entry a JUnit test (checked against the
Jenkins/Ant schema and read back with junitparser), failures with their located reason,
skipped stress cases skipped, fuel and ceiling as properties and output; and a Markdown
table a CI job summary shows (rendered as GitHub renders it)."""

from __future__ import annotations

import json
from pathlib import Path

import junitparser
import pytest
import xmlschema

from lattice_desktop.cli.common import EXIT_OVER_CEILING, EXIT_USAGE
from lattice_desktop.cli.main import main
from lattice_desktop.store.schema import Run
from tests.ci_formats import markdown_tables, read_junit
from tests.core.wat_cases import (
    ECHO,
    ECHO_CASES,
    SLOW_ECHO,
    module_with_run_body,
    write_case,
    write_submission,
)
from tests.profile.test_cli import CASES

CASES_WITH_BEHAVIOURS = CASES.replace('kind = "stress"', 'kind = "stress"\nbehaviour = "copies a long input"')

TRAPS = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func $boom (param i32) (result i32) (i32.div_u (local.get 0) (i32.const 0)))
 (func (export "run") (param i32 i32) (result i64)
   (drop (call $boom (local.get 1)))
   (i64.const 0)))
"""

# Writes 'x' over the first byte of the input it echoes: a wrong answer at byte 0.
WRONG = module_with_run_body(
    "(i32.store8 (local.get 0) (i32.const 120))"
    "(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.extend_i32_u (local.get 1)))"
)


@pytest.fixture
def case(tmp_path):
    return write_case(tmp_path / "case", CASES_WITH_BEHAVIOURS, fuel_limit=10_000_000)


def _grade(tmp_path, case, wat, name, capsys, *extra):
    sub = write_submission(tmp_path / name, wat, model=f"model-{name}")
    junit, md = tmp_path / f"{name}.xml", tmp_path / f"{name}.md"
    args = ["grade", str(sub), "--case", str(case), "--json", "--junit", str(junit), "--markdown", str(md)]
    code = main([*args, "--db", str(tmp_path / "db"), *extra])
    report = json.loads(capsys.readouterr().out)
    return code, report, read_junit(junit), md.read_text(encoding="utf-8")


def _cases(xml: junitparser.JUnitXml) -> list[junitparser.TestCase]:
    (suite,) = list(xml)
    return list(suite)


def test_a_correct_run_is_one_suite_with_a_passed_test_per_case(tmp_path, case, capsys):
    code, report, xml, _ = _grade(tmp_path, case, ECHO, "ok", capsys)
    assert code == 0
    (suite,) = list(xml)
    assert suite.tests == len(report["results"]) == 3 and suite.failures == suite.skipped == 0
    tests = _cases(xml)
    assert [t.name for t in tests] == [
        "small: echo",
        "big: copies a long input",
        "medium: copies a long input",
    ]
    assert [t.classname for t in tests] == ["echo.smoke", "echo.stress", "echo.stress"]
    assert all(t.is_passed for t in tests)
    props = {p.name: p.value for p in suite.properties()}
    assert props["verdict"] == "correct" and props["score"] == str(report["score"])
    assert props["run_id"] == str(report["run_id"]) and props["ceiling"] == "10000000"
    for r in report["results"]:
        assert props[f"{r['name']}.fuel"] == str(r["fuel"])
        assert props[f"{r['name']}.ceiling"] == str(r["ceiling"])
        test = next(t for t in tests if t.name.startswith(r["name"] + ":"))
        assert f"fuel {r['fuel']:,}" in test.system_out and f"ceiling {r['ceiling']:,}" in test.system_out


def test_a_trap_fails_its_test_with_the_trap_and_function_and_the_stress_cases_are_skipped(
    tmp_path, case, capsys
):
    code, report, xml, md = _grade(tmp_path, case, TRAPS, "traps", capsys)
    assert code == 1
    small, big, medium = _cases(xml)
    (failure,) = small.result
    assert isinstance(failure, junitparser.Failure) and failure.type == "trap"
    assert failure.message == "trap: integer_division_by_zero in boom+0x5"
    assert "wasm stack (innermost first):" in failure.text and "boom+0x5" in failure.text
    for skipped in (big, medium):
        (result,) = skipped.result
        assert isinstance(result, junitparser.Skipped)
        assert "smoke test failed (small)" in result.message
    (suite,) = list(xml)
    assert (suite.failures, suite.skipped, suite.errors) == (1, 2, 0)
    # the job summary: verdict, no score, the run's standing cell; a row per case with its reason
    head, cases = markdown_tables(md)
    assert head[0] == ["verdict", "score (fuel)", "standing", "run"]
    assert head[1][0] == "✗ incorrect" and head[1][1] == "–" and head[1][3] == str(report["run_id"])
    rows = {row[0]: row for row in cases[1:]}
    assert rows["small"][2] == "✗ trap" and rows["small"][5] == "trap: integer_division_by_zero in boom+0x5"
    assert rows["big"][2].endswith("skipped")


def test_a_wrong_answer_fails_with_the_first_mismatch(tmp_path, case, capsys):
    code, _, xml, _ = _grade(tmp_path, case, WRONG, "wrong", capsys)
    assert code == 1
    (failure,) = _cases(xml)[0].result
    assert failure.type == "wrong_answer"
    assert failure.message == "wrong answer: byte 0: expected 0x61, got 0x78"
    assert "first mismatch: byte 0: expected 0x61, got 0x78" in failure.text


def test_the_summary_shows_score_and_standing_of_a_correct_run(tmp_path, case, capsys):
    _grade(tmp_path, case, ECHO, "first", capsys)
    _, report, _, md = _grade(tmp_path, case, ECHO, "second", capsys)
    head, cases = markdown_tables(md)
    place = report["standing"]
    assert head[1][0] == "✓ correct" and head[1][1] == f"{report['score']:,}"
    assert head[1][2].startswith(f"#{place['rank']} of {place['of']}")
    assert [row[0] for row in cases[1:]] == [r["name"] for r in report["results"]]
    assert [row[3] for row in cases[1:]] == [f"{r['fuel']:,}" for r in report["results"]]


def test_odd_characters_in_a_model_name_still_make_a_valid_report(tmp_path, case, capsys):
    sub = write_submission(tmp_path / "odd", ECHO, model="odd\\u0007 | <name>")
    junit, md = tmp_path / "odd.xml", tmp_path / "odd.md"
    args = [
        "grade",
        str(sub),
        "--case",
        str(case),
        "--no-store",
        "--junit",
        str(junit),
        "--markdown",
        str(md),
    ]
    assert main(args) == 0
    capsys.readouterr()
    (suite,) = list(read_junit(junit))
    assert suite.name.startswith("odd\\u0007 | <name>")
    head, _ = markdown_tables(md.read_text(encoding="utf-8"))
    assert len(head[1]) == 4  # the pipe in the name did not split a cell
    assert "<name>" in md.read_text(encoding="utf-8").replace("\\", "") and "\x07" not in md.read_text()


UNWRITABLE = {
    "folder": "is a folder",
    "missing-parent": "folder does not exist",
    "no-new-file": "cannot write",
}


@pytest.mark.parametrize("where", UNWRITABLE)
def test_a_report_path_that_cannot_be_written_is_refused_before_grading(tmp_path, case, capsys, where):
    # /proc takes no new file, even from root (a read-only folder would not stop root).
    targets = {"folder": tmp_path, "missing-parent": tmp_path / "no" / "such" / "r.xml"}
    target = targets.get(where, Path("/proc/lattice-report.xml"))
    sub = write_submission(tmp_path / "ok", ECHO)
    db = tmp_path / "db"
    assert main(["grade", str(sub), "--case", str(case), "--db", str(db)]) == 0
    stored = Run.select().count()
    capsys.readouterr()
    code = main(["grade", str(sub), "--case", str(case), "--junit", str(target), "--db", str(db)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and str(target) in err
    assert UNWRITABLE[where] in err
    assert Run.select().count() == stored  # nothing graded, nothing stored


def test_the_schema_check_refuses_what_jenkins_would(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<testsuites><testsuite tests="1"><testcase classname="x"/></testsuite></testsuites>')
    with pytest.raises(xmlschema.XMLSchemaValidationError):  # a testcase needs its name
        read_junit(bad)


def test_a_case_over_the_ceiling_fails_with_its_overshoot(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=8_000)
    sub = write_submission(tmp_path / "slow", SLOW_ECHO)
    junit = tmp_path / "slow.xml"
    code = main(["grade", str(sub), "--case", str(case), "--no-store", "--json", "--junit", str(junit)])
    assert code == EXIT_OVER_CEILING
    longer = next(r for r in json.loads(capsys.readouterr().out)["results"] if r["name"] == "longer")
    assert longer["outcome"] == "over_ceiling"
    (suite,) = list(read_junit(junit))
    hello, slow = list(suite)
    assert hello.is_passed
    (failure,) = slow.result
    assert failure.type == "over_ceiling"
    assert f"{longer['fuel']:,} fuel, {longer['overshoot']:,} over the ceiling of 8,000" in failure.message
    props = {p.name: p.value for p in suite.properties()}
    assert props["verdict"] == "over_ceiling" and props["score"] == ""
