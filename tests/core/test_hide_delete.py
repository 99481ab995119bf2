"""Hiding and deleting runs: a hidden run leaves the runs list, the field, the leaderboard
and the percentiles (and comes back when shown again); a deleted run leaves no row behind
in any table of a real SQLite file."""

from __future__ import annotations

import sqlite3

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.grade_jobs import GradeJob, run_job
from lattice_desktop.store import runs
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from lattice_desktop.store.fuel_queries import field_best_per_case
from lattice_desktop.store.hidden_runs import hidden_ids, hide_runs, unhide_runs
from lattice_desktop.store.pages import board_scopes
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.schema import BuildLog
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import (
    ECHO,
    ECHO_CASES,
    SLOW_ECHO,
    module_with_run_body,
    write_case,
    write_submission,
)

WRONG = module_with_run_body("(i64.const 0)")  # an empty answer: wrong on every case


@pytest.fixture
def field(tmp_path):
    """Three models graded for real: a fast echo (a), a slow echo (b), a wrong one (c)."""
    db_path = tmp_path / "runs.db"
    writer = Writer(open_database(db_path))
    case = write_case(tmp_path / "case", ECHO_CASES)
    ids = {}
    for model, wat in (("a", ECHO), ("b", SLOW_ECHO), ("c", WRONG)):
        sub = load_submission(write_submission(tmp_path / model, wat, model=model))
        ids[model] = run_job(GradeJob(case, sub), writer).run_id
    yield writer, ids, db_path
    writer.close()


def test_a_hidden_run_leaves_the_field_and_comes_back_when_shown(field):
    writer, ids, _ = field
    assert [e.model for e in leaderboard("echo").entries] == ["a", "b"]
    assert standing(ids["b"]).describe() == "#2 of 2 · 50th percentile"
    assert field_best_per_case(ids["b"])["longer"].model == "a"

    assert writer.call(hide_runs, [ids["a"]]) == 1
    assert writer.call(hide_runs, [ids["a"]]) == 0  # hiding twice changes nothing
    assert [e.model for e in leaderboard("echo").entries] == ["b"]
    assert standing(ids["b"]).describe() == "#1 of 1 · 100th percentile"
    assert field_best_per_case(ids["b"])["longer"].model == "b"
    assert ids["a"] not in [r.id for r in list_runs()]
    shown_all = {r.id: r.hidden for r in list_runs(include_hidden=True)}
    assert shown_all == {ids["a"]: True, ids["b"]: False, ids["c"]: False}
    assert load_run(ids["a"]).summary.hidden  # still stored, whole
    assert len(load_run(ids["a"]).results) == 2

    assert writer.call(unhide_runs, [ids["a"]]) == 1
    assert hidden_ids() == []
    assert [e.model for e in leaderboard("echo").entries] == ["a", "b"]


def test_a_scope_whose_runs_are_all_hidden_leaves_the_board_pickers(field):
    writer, ids, _ = field
    assert [s.runs for s in board_scopes()] == [3]
    writer.call(hide_runs, list(ids.values()))
    assert board_scopes() == []
    board = leaderboard("echo")
    assert board.entries == [] and board.over_ceiling == []


def test_deleting_runs_leaves_no_row_behind_in_the_sqlite_file(field):
    writer, ids, db_path = field
    assert BuildLog.select().where(BuildLog.run == ids["a"]).count() == 1  # each run keeps its build log
    writer.call(hide_runs, [ids["a"]])
    assert writer.call(runs.delete_runs, [ids["a"], ids["c"]]) == 2
    assert [r.id for r in list_runs(include_hidden=True)] == [ids["b"]]
    assert [e.model for e in leaderboard("echo").entries] == ["b"]
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
        orphans = {
            table: raw.execute(
                f"SELECT COUNT(*) FROM {table} WHERE run_id NOT IN (SELECT id FROM run)"
            ).fetchone()[0]
            for table in ("case_result", "build_log", "hidden_run")
        }
        assert orphans == {"case_result": 0, "build_log": 0, "hidden_run": 0}
        assert raw.execute("SELECT COUNT(*) FROM case_result").fetchone()[0] == 2  # b's two cases
        assert {m for (m,) in raw.execute("SELECT model FROM submission")} == {"b"}
        assert raw.execute('SELECT COUNT(*) FROM "case"').fetchone()[0] == 1  # b still uses it
    writer.call(runs.delete_runs, [ids["b"]])
    with sqlite3.connect(db_path) as raw:
        counts = [
            raw.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in ("run", "case", "submission")
        ]
    assert counts == [0, 0, 0]


def test_deleting_an_unknown_or_running_run_is_refused_and_deletes_nothing(field, tmp_path):
    writer, ids, _ = field
    with pytest.raises(UserError, match="there is no run 999"):
        writer.call(runs.delete_runs, [ids["a"], 999])
    case = write_case(tmp_path / "case2", ECHO_CASES)
    running = writer.call(runs.begin_run, load_case(case), load_submission(tmp_path / "a"))
    with pytest.raises(UserError, match=f"run {running} is still grading"):
        writer.call(runs.delete_runs, [running])
    assert len(list_runs()) == 4
    assert {r.verdict for r in list_runs()} == {Verdict.CORRECT, Verdict.INCORRECT, Verdict.RUNNING}


@pytest.mark.postgres
def test_hiding_and_deleting_on_postgresql(pg_url, tmp_path):
    writer = Writer(open_database(pg_url))
    try:
        case = write_case(tmp_path / "case", ECHO_CASES)
        ids = [
            run_job(
                GradeJob(case, load_submission(write_submission(tmp_path / m, wat, model=m))), writer
            ).run_id
            for m, wat in (("a", ECHO), ("b", SLOW_ECHO))
        ]
        writer.call(hide_runs, [ids[0]])
        assert [e.model for e in leaderboard("echo").entries] == ["b"]
        assert standing(ids[1]).describe() == "#1 of 1 · 100th percentile"
        writer.call(runs.delete_runs, ids)
        assert list_runs(include_hidden=True) == [] and hidden_ids() == []
        assert BuildLog.select().count() == 0
    finally:
        writer.close()
