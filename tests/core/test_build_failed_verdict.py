"""A submission whose build fails gets the verdict "build failed" — stored, filtered, in
`runs --json`, in exports, in `grade`'s exit status — and is not counted among its model's
runs on the leaderboard, since it says nothing of the model's answers. Runs stored as
"incorrect" before are moved to it when the database is opened."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import textwrap
from pathlib import Path

import pytest

from lattice_desktop.cli.common import VERDICT_EXIT
from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.migrations import LATEST
from lattice_desktop.store.schema import Run, SchemaVersion
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import ECHO, ECHO_CASES, module_with_run_body, write_case, write_submission

FAILING = "python -c \"import sys; print('engine.c:3: error: boom'); sys.exit(3)\""
WRONG = module_with_run_body("(i64.const 0x0000040000000002)")


def failing_submission(folder, model="model-a"):
    folder.mkdir(parents=True)
    (folder / "submission.toml").write_text(
        textwrap.dedent(f"""\
            [submission]
            model = "{model}"

            [build]
            commands = ['''{FAILING}''']
            module = "module.wasm"
            """)
    )
    return folder


@pytest.fixture
def graded(tmp_path, capsys):
    """A correct run, a wrong answer and a failed build of one model; the --db arguments and
    the failed build's exit status."""
    case = str(write_case(tmp_path / "case", ECHO_CASES))
    db = ["--db", str(tmp_path / "runs.db")]
    assert main(["grade", str(write_submission(tmp_path / "good", ECHO)), "--case", case, *db]) == 0
    main(["grade", str(write_submission(tmp_path / "wrong", WRONG)), "--case", case, *db])
    broken = str(failing_submission(tmp_path / "broken"))
    status = main(["grade", broken, "--case", case, "--build", "--allow-unisolated-build", *db])
    out = capsys.readouterr().out
    assert "why: the build failed" in out
    return db, status


def _runs(db, capsys, *flags):
    assert main(["runs", "--json", *flags, *db]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_failed_build_is_its_own_verdict_with_its_own_exit_status(graded, capsys):
    db, status = graded
    assert status == VERDICT_EXIT[Verdict.BUILD_FAILED]
    assert status not in {
        code for verdict, code in VERDICT_EXIT.items() if verdict is not Verdict.BUILD_FAILED
    }
    verdicts = [r["verdict"] for r in _runs(db, capsys)]
    assert verdicts == [Verdict.BUILD_FAILED.value, Verdict.INCORRECT.value, Verdict.CORRECT.value]


def test_the_readme_documents_the_exit_status():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert f"{VERDICT_EXIT[Verdict.BUILD_FAILED]} when the submission's build failed" in " ".join(
        readme.split()
    )


def test_runs_filter_by_build_failed_and_incorrect_apart(graded, capsys):
    db, _status = graded
    failed = _runs(db, capsys, "--verdict", Verdict.BUILD_FAILED.value)
    wrong = _runs(db, capsys, "--verdict", Verdict.INCORRECT.value)
    assert len(failed) == 1 and len(wrong) == 1
    assert failed[0]["run_id"] != wrong[0]["run_id"]
    assert main(["runs", *db]) == 0
    assert Verdict.BUILD_FAILED.look.text in capsys.readouterr().out


def test_exports_name_the_failed_build(graded, capsys, tmp_path):
    db, _status = graded
    assert main(["export", "runs", "--csv", "-", *db]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert sorted(r["verdict"] for r in rows) == sorted(
        v.value for v in (Verdict.BUILD_FAILED, Verdict.INCORRECT, Verdict.CORRECT)
    )
    html = tmp_path / "runs.html"
    assert main(["export", "runs", "--html", str(html), *db]) == 0
    assert Verdict.BUILD_FAILED.look.words in html.read_text()


def test_a_failed_build_is_not_counted_in_the_leaderboard_runs(graded):
    db, _status = graded
    open_database(db[1])
    (entry,) = leaderboard("echo").entries
    stored = Run.select().where(Run.model == entry.model).count()
    assert stored == 3
    assert entry.runs == stored - 1  # the correct run and the wrong answer, not the build


def store_two_runs(target, tmp_path):
    """A database (at `target`) holding a failed build stored as "incorrect" by version 5 of
    the schema, and a real wrong answer; the two run ids."""
    writer = Writer(open_database(target))
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    wrong = grade_and_store(case, load_submission(write_submission(tmp_path / "wrong", WRONG)), writer=writer)
    built = grade_and_store(
        case,
        load_submission(failing_submission(tmp_path / "broken")),
        writer=writer,
        allow_build=True,
        allow_unisolated=True,
    )
    writer.close()
    assert built.report.verdict is Verdict.BUILD_FAILED
    # What the grader before this change stored, in a database of schema version 5.
    Run.update(verdict=Verdict.INCORRECT.value).where(Run.id == built.run_id).execute()
    SchemaVersion.update(version=5).execute()
    Run._meta.database.close()
    return built.run_id, wrong.run_id


def assert_migrated(target, built_id, wrong_id):
    db = open_database(target)
    verdicts = dict(Run.select(Run.id, Run.verdict).tuples())
    assert verdicts == {built_id: Verdict.BUILD_FAILED.value, wrong_id: Verdict.INCORRECT.value}
    assert SchemaVersion.get().version == LATEST
    db.close()


def test_stored_failed_builds_are_migrated_on_sqlite(tmp_path):
    target = str(tmp_path / "old.db")
    built_id, wrong_id = store_two_runs(target, tmp_path)
    assert Verdict.INCORRECT.value in {v for (v,) in _verdicts_raw(target)}
    assert_migrated(target, built_id, wrong_id)


def _verdicts_raw(path):
    with sqlite3.connect(path) as conn:
        return conn.execute("select verdict from run").fetchall()


@pytest.mark.postgres
def test_stored_failed_builds_are_migrated_on_postgres(tmp_path, pg_url):
    built_id, wrong_id = store_two_runs(pg_url, tmp_path)
    assert_migrated(pg_url, built_id, wrong_id)
