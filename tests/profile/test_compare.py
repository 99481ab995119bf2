"""`lattice-desktop compare A B` on real graded runs: per-case fuel, change and percentage,
the functions behind the change from real profiles, --fail-above's exit status for CI,
--json, a self-contained --html, and a submission folder graded on the spot."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from lattice_desktop.cli.common import EXIT_USAGE
from lattice_desktop.cli.compare_cmd import EXIT_REGRESSED
from lattice_desktop.cli.main import main
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.compare_runs import compare_runs
from tests.core.wat_cases import write_case, write_submission
from tests.profile.test_cli import CASES
from tests.profile.test_flame import LIGHTER, SHARED


@pytest.fixture
def runs(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    db = ["--db", str(tmp_path / "db")]
    reports = {}
    for name, wat in (("light", LIGHTER), ("heavy", SHARED)):
        sub = write_submission(tmp_path / name, wat, model=f"model-{name}")
        assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
        reports[name] = json.loads(capsys.readouterr().out)
    return case, db, reports


def _fuel(report, case):
    return next(r["fuel"] for r in report["results"] if r["name"] == case)


def test_a_regression_is_reported_per_case_and_per_function(runs, capsys):
    _, db, reports = runs
    light, heavy = reports["light"]["run_id"], reports["heavy"]["run_id"]
    assert main(["compare", str(light), str(heavy), "--json", *db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["before"]["run_id"] == light and data["after"]["run_id"] == heavy
    for case in data["cases"]:
        before, after = _fuel(reports["light"], case["name"]), _fuel(reports["heavy"], case["name"])
        assert (case["before_fuel"], case["after_fuel"], case["delta"]) == (before, after, after - before)
        assert case["percent"] == pytest.approx(100 * (after - before) / before)
        if case["delta"]:
            # every function that changed is listed here: their changes make the whole
            assert sum(f["delta"] for f in case["functions"]) == case["delta"]
            assert {"a", "shared", "leaf"} <= {f["name"] for f in case["functions"]}


def test_fail_above_exits_for_ci_only_when_a_case_got_worse(runs, capsys):
    _, db, reports = runs
    light, heavy = str(reports["light"]["run_id"]), str(reports["heavy"]["run_id"])
    assert main(["compare", light, heavy, "--fail-above", "2", *db]) == EXIT_REGRESSED
    out = capsys.readouterr().out
    assert "FAIL" in out and "in a:" in out
    assert main(["compare", heavy, light, "--fail-above", "2", *db]) == 0
    assert "ok: no stress case worse" in capsys.readouterr().out
    assert EXIT_REGRESSED != EXIT_USAGE
    with pytest.raises(SystemExit) as usage:
        main(["compare", light, heavy, "--fail-above", "two", *db])
    assert usage.value.code == EXIT_USAGE


def test_html_is_one_file_with_its_plots(runs, tmp_path, capsys):
    _, db, reports = runs
    out = tmp_path / "report.html"
    light, heavy = str(reports["light"]["run_id"]), str(reports["heavy"]["run_id"])
    assert main(["compare", light, heavy, "--html", str(out), "--fail-above", "2", *db]) == EXIT_REGRESSED
    html = out.read_text()
    assert html.count("<svg") == 2 and "What changed on big" in html
    assert "src=" not in html and "href=" not in html  # nothing fetched
    assert f"{_fuel(reports['heavy'], 'big'):,}" in html


def test_a_submission_folder_is_graded_on_the_spot(runs, tmp_path, capsys):
    _, db, reports = runs
    again = write_submission(tmp_path / "again", SHARED, model="model-again")
    light = str(reports["light"]["run_id"])
    assert main(["compare", light, str(again), "--no-profile", "--json", *db]) == 0
    captured = capsys.readouterr()
    assert "stored as run" in captured.err
    data = json.loads(captured.out)
    assert [c["after_fuel"] for c in data["cases"]] == [
        _fuel(reports["heavy"], c["name"]) for c in data["cases"]
    ]
    assert all("no stored profile" in c["note"] for c in data["cases"] if c["delta"])
    assert main(["compare", str(again), str(again), *db]) == EXIT_USAGE  # a folder alone: no case
    assert "--case" in capsys.readouterr().err


def test_losing_a_verdict_counts_as_worse_whatever_the_fuel(runs, capsys):
    reports = runs[2]
    comparison = compare_runs(
        reports["heavy"]["run_id"], reports["light"]["run_id"], writer=None, profile=False
    )
    case = comparison.cases[0]
    assert not case.worse_than(0.0)  # cheaper, same verdict
    over = replace(case, after_outcome=Outcome.OVER_CEILING.value)
    assert over.verdict_worse and over.worse_than(1000.0)
    assert not replace(case, before_outcome=Outcome.WRONG_ANSWER.value).verdict_worse


def test_each_module_is_instrumented_once_however_many_cases_changed(runs, monkeypatch, capsys):
    import lattice_desktop.profile.run as profile_run
    import lattice_desktop.services.profiling as profiling

    _, db, reports = runs
    instrumented = []
    real = profiling.instrument

    def counted(wasm, **kwargs):
        instrumented.append(wasm)
        return real(wasm, **kwargs)

    def refused(*args, **kwargs):
        raise AssertionError("compare instrumented a module per case")

    monkeypatch.setattr(profiling, "instrument", counted)
    monkeypatch.setattr(profile_run, "instrument", refused)
    light, heavy = str(reports["light"]["run_id"]), str(reports["heavy"]["run_id"])
    assert main(["compare", light, heavy, "--json", *db]) == 0
    data = json.loads(capsys.readouterr().out)
    changed = [c for c in data["cases"] if c["delta"]]
    assert len(changed) > 1 and all(c["functions"] for c in changed), data
    assert len(instrumented) == 2 and instrumented[0] != instrumented[1]  # light's, then heavy's


def test_both_runs_of_a_case_are_profiled_at_once_on_the_callers_database(runs, tmp_path, monkeypatch):
    """B's profile is made on a second thread while A's is made: that thread reads the
    database the caller is bound to (as the app's workers are), not the one opened last."""
    import threading

    import lattice_desktop.services.compare_runs as compare_module
    from lattice_desktop.store.base import db_proxy
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.writer import Writer

    _, db, reports = runs
    theirs = open_database(db[1])
    open_database(tmp_path / "another.db")  # now the default of any thread not bound to one
    real = compare_module.profile_target
    meet = threading.Barrier(2, timeout=30)  # broken unless A's and B's profiles overlap
    seen = []

    def together(target, **kwargs):
        seen.append(db_proxy.obj)
        meet.wait()
        return real(target, **kwargs)

    monkeypatch.setattr(compare_module, "profile_target", together)
    writer = Writer(theirs)
    try:
        with db_proxy.bound(theirs):
            comparison = compare_runs(reports["light"]["run_id"], reports["heavy"]["run_id"], writer=writer)
    finally:
        writer.close()
    changed = [c for c in comparison.cases if c.delta]
    assert changed and all(c.functions for c in changed), comparison
    assert len(seen) == 2 * len(changed) and all(d is theirs for d in seen)


def test_a_cancelled_compare_stops_both_sides_and_leaves_no_thread(runs, monkeypatch):
    import threading

    import lattice_desktop.services.compare_runs as compare_module
    from lattice_desktop.errors import Cancelled
    from lattice_desktop.work import Work

    _, _, reports = runs
    work = Work()
    real = compare_module.profile_target

    def cancelling(target, **kwargs):
        work.cancel()  # as Cancel in the app, or Ctrl+C, while the two profiles are made
        return real(target, **kwargs)

    monkeypatch.setattr(compare_module, "profile_target", cancelling)
    with pytest.raises(Cancelled):
        compare_runs(reports["light"]["run_id"], reports["heavy"]["run_id"], writer=None, work=work)
    assert not [t for t in threading.enumerate() if t.name.startswith("compare-profile")]
