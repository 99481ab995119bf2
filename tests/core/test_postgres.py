"""The same storage on a real PostgreSQL server, as a team sharing one would use it.

Runs when LATTICE_TEST_POSTGRES_URL names a server (`.ci/run` starts one); each test
gets a database of its own.
"""

from __future__ import annotations

import os

import pytest

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.resources import RESOURCES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from lattice_desktop.store.harness_runs import verify_stored
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.runs import recover_interrupted
from lattice_desktop.store.schema import Run
from lattice_desktop.store.writer import Writer
from tests.core.harness_import import import_run
from tests.core.test_store import _fake_run
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission

SERVER = os.environ.get("LATTICE_TEST_POSTGRES_URL")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not SERVER, reason="set LATTICE_TEST_POSTGRES_URL to a PostgreSQL server"),
]


def test_grade_store_and_read_back(tmp_path, pg_url):
    writer = Writer(open_database(pg_url))
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    fast = grade_and_store(
        case, load_submission(write_submission(tmp_path / "a", ECHO, model="a")), writer=writer
    )
    slow = grade_and_store(
        case, load_submission(write_submission(tmp_path / "b", SLOW_ECHO, model="b")), writer=writer
    )
    writer.close()
    assert load_run(fast.run_id).results == fast.report.results
    assert [r.id for r in list_runs(text="echo")] == [slow.run_id, fast.run_id]
    assert standing(slow.run_id).rank == 2
    board = leaderboard("echo")
    assert [e.model for e in board.entries] == ["a", "b"]
    assert board.entries[1].ratio > 1


def test_field_ties_and_over_ceiling_on_postgres(pg_url):
    open_database(pg_url)
    x = _fake_run("x", 100)
    _fake_run("y", 100)
    _fake_run("z", 90)
    _fake_run("lazy", None, Verdict.OVER_CEILING, percent_over=12.5)
    assert standing(x).rank == 2
    board = leaderboard("c")
    assert [(e.rank, e.model) for e in board.entries] == [(1, "z"), (2, "x"), (2, "y")]
    assert [(e.model, e.percent_over) for e in board.over_ceiling] == [("lazy", 12.5)]


def test_interrupted_runs_and_harness_runs_on_postgres(pg_url):
    open_database(pg_url)
    run_id = _fake_run("ghost", None, Verdict.RUNNING)
    Run.update(owner_pid=None).where(Run.id == run_id).execute()
    assert recover_interrupted() == 1
    assert list_runs()[0].verdict is Verdict.INTERRUPTED
    import_run(RESOURCES / "harness" / "webshop.box.toml", RESOURCES / "harness" / "traces" / "clean.jsonl")
    assert verify_stored() == []
