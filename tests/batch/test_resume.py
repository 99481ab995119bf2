"""A batch can be run again: what is stored is skipped (or regraded on request), a broken
submission is reported with its place while the rest is graded, and the CLI prints JSON."""

from __future__ import annotations

import json

from lattice_desktop.batch.dask_backend import DaskBackend
from lattice_desktop.batch.driver import grade_batch
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.schema import CaseResultRow, Run
from tests.batch.fields import echo_case, hostile_field


def test_a_rerun_skips_what_is_stored_and_regrade_grades_again(tmp_path, client, writer):
    case = load_case(echo_case(tmp_path / "case", fuel_limit=2_000_000))
    submissions, _ = find_submissions([hostile_field(tmp_path / "field")])
    first = grade_batch(case, submissions, backend=DaskBackend(client), writer=writer)
    assert len(first.runs) == 8 and Run.select().count() == 8
    again = grade_batch(case, submissions, backend=DaskBackend(client), writer=writer)
    assert again.runs == [] and len(again.skipped) == 8
    assert {run.run_id for _s, run in again.skipped} == {r.run_id for r in first.runs}
    assert Run.select().count() == 8
    regraded = grade_batch(case, submissions, backend=DaskBackend(client), writer=writer, regrade=True)
    assert len(regraded.runs) == 8 and Run.select().count() == 16

    def verdicts(result):
        return {r.report.submission.model: r.report.verdict for r in result.runs}

    assert verdicts(regraded) == verdicts(first)


def test_a_changed_case_is_graded_again(tmp_path, client, writer):
    submissions, _ = find_submissions([hostile_field(tmp_path / "field")])
    case = load_case(echo_case(tmp_path / "case", fuel_limit=2_000_000))
    grade_batch(case, submissions[:2], backend=DaskBackend(client), writer=writer)
    changed = load_case(echo_case(tmp_path / "case", fuel_limit=3_000_000))
    result = grade_batch(changed, submissions[:2], backend=DaskBackend(client), writer=writer)
    assert len(result.runs) == 2 and not result.skipped


def test_a_broken_submission_is_located_and_the_rest_is_graded(tmp_path, capsys):
    field = hostile_field(tmp_path / "field")
    (field / "broken").mkdir()
    (field / "broken" / "submission.toml").write_text('[submission]\nmodel = "x"\n[build]\nmodule = 3\n')
    (field / "missing-module").mkdir()
    (field / "missing-module" / "submission.toml").write_text(
        '[submission]\nmodel = "y"\n[build]\ncommands = ["make"]\nmodule = "m.wasm"\n'
    )
    case = echo_case(tmp_path / "case", fuel_limit=2_000_000)
    db = tmp_path / "cli.db"
    code = main(
        [
            "grade-batch",
            str(field),
            str(tmp_path / "nowhere"),
            "--case",
            str(case),
            "--db",
            str(db),
            "--workers",
            "1",
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1
    data = json.loads(captured.out)
    assert len(data["runs"]) == 8
    problems = {p["path"]: p["message"] for p in data["problems"]}
    assert "broken/submission.toml:4" in problems[str(field / "broken")]
    assert "build commands" in problems[str((field / "missing-module").resolve())]
    assert problems[str(tmp_path / "nowhere")] == "no such file or folder"
    assert "broken/submission.toml:4" in captured.err
    # Each run has the shape of `grade --json`, with its stored id.
    run = data["runs"][0]
    assert {"case", "submission", "verdict", "score", "results", "run_id", "standing"} <= set(run)
    assert data["summary"]["graded"] == 8 and sum(data["summary"]["verdicts"].values()) == 8
    assert data["summary"]["top"][0]["model"] == "hostile-passes"
    # When stderr is not a terminal: one line per finished run, nothing else but the problems.
    lines = [line for line in captured.err.splitlines() if not line.startswith(("error:", " "))]
    assert len(lines) == 8 and all(" · run " in line for line in lines)


def test_the_summary_table_counts_verdicts_and_ranks_the_field(tmp_path, capsys):
    case = echo_case(tmp_path / "case", fuel_limit=2_000_000)
    db = tmp_path / "cli.db"
    field = hostile_field(tmp_path / "field")
    assert main(["grade-batch", str(field), "--case", str(case), "--db", str(db), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "8 graded, 0 already stored, 0 could not be read" in out
    assert "✓ correct            1" in out and "✗ incorrect          7" in out
    assert "   1  hostile-passes" in out
    assert main(["grade-batch", str(field), "--case", str(case), "--db", str(db), "--workers", "1"]) == 0
    assert "0 graded, 8 already stored" in capsys.readouterr().out
    assert Run.select().where(Run.verdict == Verdict.CORRECT.value).count() == 1
    assert CaseResultRow.select().count() == 16


def test_a_scheduler_address_that_cannot_be_used_is_a_usage_error(tmp_path, capsys):
    field = hostile_field(tmp_path / "field")
    code = main(
        [
            "grade-batch",
            str(field),
            "--case",
            str(echo_case(tmp_path / "case")),
            "--db",
            str(tmp_path / "l.db"),
            "--scheduler",
            "foo://127.0.0.1:1",
        ]
    )
    assert code == 2
    assert (
        "cannot reach the dask scheduler at foo://127.0.0.1:1: unknown address scheme"
        in capsys.readouterr().err
    )
