"""`grade-batch --junit FILE --markdown FILE`: a JUnit suite per submission (the hostile
field: one passes, the others fail every way a module can), checked against the Jenkins
schema and read back with junitparser; a Markdown row per submission; runs a second batch
finds already stored are reported too, said to be so."""

from __future__ import annotations

import json

import junitparser

from lattice_desktop.cli.main import main
from tests.batch.fields import echo_case, hostile_field
from tests.ci_formats import markdown_tables, read_junit
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission


def test_every_submission_is_a_suite_and_every_case_a_test(tmp_path, capsys):
    field = hostile_field(tmp_path / "field")
    case = echo_case(tmp_path / "case", fuel_limit=2_000_000)
    junit, md = tmp_path / "batch.xml", tmp_path / "batch.md"
    args = ["grade-batch", str(field), "--case", str(case), "--db", str(tmp_path / "db"), "--workers", "1"]
    assert main([*args, "--json", "--junit", str(junit), "--markdown", str(md)]) == 0
    runs = {r["submission"]["model"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    xml = read_junit(junit)
    suites = {s.name.split(" · ")[0]: s for s in xml}
    assert set(suites) == set(runs) and len(suites) == 8
    for model, suite in suites.items():
        run = runs[model]
        tests = list(suite)
        assert suite.tests == len(tests) == len(run["results"]) == 2
        props = {p.name: p.value for p in suite.properties()}
        assert props["verdict"] == run["verdict"] and props["run_id"] == str(run["run_id"])
        for test, result in zip(tests, run["results"], strict=True):
            assert test.name.split(":")[0] == result["name"]
            if result["outcome"] == "pass":
                assert test.is_passed
            elif result["outcome"] == "skipped":
                assert isinstance(test.result[0], junitparser.Skipped)
            else:
                (failure,) = test.result
                assert isinstance(failure, junitparser.Failure) and failure.type == result["outcome"]
                assert failure.message == result["detail"].splitlines()[0]
    assert all(t.is_passed for t in suites["hostile-passes"])
    traps = next(iter(suites["hostile-traps"])).result[0]
    assert traps.type == "trap" and "unreachable" in traps.message and "in run" in traps.message
    assert xml.tests == 16 and xml.failures == 7  # each failing module fails its smoke test

    (table,) = markdown_tables(md.read_text(encoding="utf-8"))
    assert table[0][:4] == ["submission", "model", "verdict", "score (fuel)"]
    rows = {row[1]: row for row in table[1:]}
    assert set(rows) == set(runs)
    assert table[1][1] == "hostile-passes"  # the scored run first
    assert rows["hostile-passes"][3] == f"{runs['hostile-passes']['score']:,}"
    assert rows["hostile-passes"][4].startswith("#1 of 1")
    assert rows["hostile-traps"][2] == "✗ incorrect" and "unreachable" in rows["hostile-traps"][6]

    # Again: nothing is graded, every run is found stored, and still reported.
    again = tmp_path / "again.xml"
    assert main([*args, "--junit", str(again)]) == 0
    capsys.readouterr()
    stored = {s.name.split(" · ")[0]: s for s in read_junit(again)}
    assert set(stored) == set(runs)
    for model, suite in stored.items():
        props = {p.name: p.value for p in suite.properties()}
        assert props["note"].startswith(f"already stored as run {runs[model]['run_id']}")
        assert [(t.name, t.is_passed) for t in suite] == [(t.name, t.is_passed) for t in suites[model]]


def test_a_submission_that_cannot_be_read_is_an_error_in_the_report(tmp_path, capsys):
    field = tmp_path / "field"
    write_submission(field / "fine", ECHO, model="fine")
    (field / "broken").mkdir()
    (field / "broken" / "submission.toml").write_text('[submission]\nmodel = "x"\n[build]\nmodule = 3\n')
    case = echo_case(tmp_path / "case", fuel_limit=2_000_000)
    junit, md = tmp_path / "batch.xml", tmp_path / "batch.md"
    args = ["grade-batch", str(field), "--case", str(case), "--db", str(tmp_path / "db"), "--workers", "1"]
    assert main([*args, "--junit", str(junit), "--markdown", str(md)]) == 1
    capsys.readouterr()
    xml = read_junit(junit)
    fine, problems = list(xml)
    assert fine.name.startswith("fine · fine") and all(t.is_passed for t in fine)
    (broken,) = list(problems)
    (error,) = broken.result
    assert isinstance(error, junitparser.Error) and "broken/submission.toml:4" in error.message
    assert xml.errors == 1
    text = md.read_text(encoding="utf-8")
    assert "**1 could not be graded:**" in text and "broken/submission.toml:4" in text


def test_the_summary_names_an_over_ceiling_case_and_marks_runs_stored_before(tmp_path, capsys):
    field = tmp_path / "field"
    write_submission(field / "fast", ECHO, model="fast")
    write_submission(field / "slow", SLOW_ECHO, model="slow")
    case = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=8_000)
    md, again = tmp_path / "batch.md", tmp_path / "again.md"
    args = ["grade-batch", str(field), "--case", str(case), "--db", str(tmp_path / "db"), "--workers", "1"]
    assert main([*args, "--markdown", str(md)]) == 0
    (table,) = markdown_tables(md.read_text(encoding="utf-8"))
    rows = {row[1]: row for row in table[1:]}
    # Its JUnit test fails with the overshoot; the summary's first failure says the same.
    assert rows["slow"][2] == "▲ over ceiling" and "over the ceiling of 8,000" in rows["slow"][6]
    assert rows["fast"][6] == "" and rows["fast"][5].isdigit()

    assert main([*args, "--markdown", str(again)]) == 0  # nothing graded: both found stored
    capsys.readouterr()
    (table,) = markdown_tables(again.read_text(encoding="utf-8"))
    for row in table[1:]:
        assert row[5] == f"{rows[row[1]][5]} (stored before)"
