"""Storage: round trip, migration, interrupted-run recovery, the field and the leaderboard."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from lattice_desktop.errors import StorageError
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store import migrations
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.schema import Run
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission


@pytest.fixture
def writer(tmp_path):
    w = Writer(open_database(tmp_path / "runs.db"))
    yield w
    w.close()


def test_a_graded_run_round_trips_with_every_result(tmp_path, writer):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    sub = load_submission(write_submission(tmp_path / "sub", ECHO, model="echo-1"))
    stored = grade_and_store(case, sub, writer=writer)
    run = load_run(stored.run_id)
    assert run.summary.verdict is Verdict.CORRECT
    assert run.summary.score == stored.report.score
    assert [r.name for r in run.results] == ["hello", "longer"]
    assert run.results == stored.report.results
    assert run.module_sha256 == stored.report.module_sha256
    assert run.wasmtime_version == stored.report.wasmtime_version
    assert "shipped module" in run.build_log
    assert [r.id for r in list_runs(model="echo-1")] == [stored.run_id]


def test_checksums_and_mismatch_survive_storage(tmp_path, writer):
    from tests.core.test_outcomes import test_checksum_mismatch_reports_snapshot_tick_and_both_values  # noqa: F401

    case_dir = tmp_path / "case"
    data = bytes(range(24))
    hex_data = "".join(f"\\{b:02x}" for b in data)
    wat = f"""(module (memory (export "memory") 1) (data (i32.const 64) "{hex_data}")
      (func (export "alloc") (param i32) (result i32) i32.const 1024)
      (func (export "run") (param i32 i32) (result i64) (i64.or (i64.shl (i64.const 64) (i64.const 32)) (i64.const 24))))"""
    cases = '[[case]]\nname = "s"\nkind = "smoke"\nbehaviour = "b"\ninput = "snapshot 5\\n"\nexpected = [1, 2, 18446744073709551615]\n'
    case = load_case(
        write_case(
            case_dir,
            cases,
            contract='abi = "bytes"\nentry = "run"\noutput = "u64-list"',
            meta='name = "snap"\nversion = 1\nfamily = "lattice-v1"',
        )
    )
    stored = grade_and_store(case, load_submission(write_submission(tmp_path / "sub", wat)), writer=writer)
    result = load_run(stored.run_id).results[0]
    assert result.outcome is Outcome.WRONG_ANSWER
    assert result.checksums == data
    assert result.mismatch == stored.report.results[0].mismatch
    assert result.mismatch.expected == 1 and result.mismatch.tick == 5


def test_migrating_an_older_database_keeps_its_runs(tmp_path):
    path = tmp_path / "old.db"
    db = open_database(path, recover=False)
    writer = Writer(db)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    stored = grade_and_store(case, load_submission(write_submission(tmp_path / "sub", ECHO)), writer=writer)
    writer.close()
    # Roll the database back to schema 1, as an older release left it, with a run in it.
    db.drop_tables(migrations.MIGRATIONS[1][2].__globals__["HARNESS_TABLES"])
    db.drop_tables(migrations.RUN_NUMBER_TABLES)
    migrations.SchemaVersion.update(version=1).execute()
    db.close()
    assert sqlite3.connect(path).execute("select version from schema_version").fetchone() == (1,)
    open_database(path)
    assert migrations.current_version(Run._meta.database) == migrations.LATEST
    assert load_run(stored.run_id).results == stored.report.results
    assert "harness_run" in Run._meta.database.get_tables()


def test_a_database_newer_than_the_app_is_refused(tmp_path):
    path = tmp_path / "new.db"
    open_database(path).close()
    sqlite3.connect(path).execute("update schema_version set version = 999").connection.commit()
    with pytest.raises(StorageError, match="newer than this Lattice Desktop"):
        open_database(path)


def test_unusable_database_files_are_clear_errors(tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="not a Lattice Desktop database"):
        open_database(garbage)
    with pytest.raises(StorageError, match="folder"):
        open_database(tmp_path)
    assert garbage.read_bytes() == b"this is not sqlite" * 100  # untouched


KILLED_GRADER = """
import sys
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.store.database import open_database
from lattice_desktop.store.writer import Writer
writer = Writer(open_database(sys.argv[1]))
grade_and_store(load_case(sys.argv[2]), load_submission(sys.argv[3]), writer=writer)
"""


def test_a_run_killed_mid_grading_is_marked_interrupted_on_next_start(tmp_path):
    db_path = tmp_path / "killed.db"
    spin = SLOW_ECHO.replace("(i32.const 100)", "(i32.const 100000000)")
    case_path = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10**15, sandbox="wall_clock_s = 600")
    sub = write_submission(tmp_path / "sub", spin)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_GRADER, str(db_path), str(case_path), str(sub)], cwd=os.getcwd()
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            try:
                rows = sqlite3.connect(db_path).execute("select verdict from run").fetchall()
            except sqlite3.OperationalError:  # not created yet
                rows = []
            if rows == [("running",)]:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the grader never recorded its run")
        time.sleep(0.3)  # mid-case
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    open_database(db_path)
    runs = list_runs()
    assert [r.verdict for r in runs] == [Verdict.INTERRUPTED]
    assert load_run(runs[0].id).results == []  # nothing half-written shows as a result


def _fake_run(
    model: str,
    score: int | None,
    verdict: Verdict = Verdict.CORRECT,
    *,
    case="c",
    minutes: int = 0,
    percent_over: float | None = None,
) -> int:
    from lattice_desktop.store.schema import CaseRecord, SubmissionRecord

    case_row, _ = CaseRecord.get_or_create(
        name=case,
        version=1,
        variant="standard",
        manifest_hash="h",
        defaults={"manifest_path": "x", "fuel_limit": 100},
    )
    sub, _ = SubmissionRecord.get_or_create(
        model=model, path=f"/{model}", module_sha256=None, defaults={"name": model}
    )
    when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes)
    return Run.create(
        case=case_row,
        submission=sub,
        model=model,
        case_name=case,
        case_version=1,
        case_variant="standard",
        verdict=verdict.value,
        score=score,
        stress_fuel=score if verdict is Verdict.CORRECT else 150,
        max_percent_over=percent_over,
        fuel_limit=100,
        wasmtime_version="50.0.1",
        fuel_settings="x",
        started=when,
        finished=when,
    ).id


def test_field_counts_each_model_once_at_its_best(tmp_path):
    open_database(tmp_path / "field.db")
    a_best = _fake_run("a", 100)
    a_slow = _fake_run("a", 500, minutes=1)
    b = _fake_run("b", 200)
    _fake_run("b", 250)
    c = _fake_run("c", 300)
    _fake_run("d", None, Verdict.INCORRECT)
    assert standing(a_best).describe() == "#1 of 3 · 100th percentile"
    # The slower rerun of `a` stands for `a` itself: it lands behind b and c.
    slow = standing(a_slow)
    assert (slow.rank, slow.of) == (3, 3)
    assert slow.percentile == pytest.approx(100 / 3)
    assert (standing(b).rank, standing(c).rank) == (2, 3)


def test_ties_share_a_rank(tmp_path):
    open_database(tmp_path / "ties.db")
    x = _fake_run("x", 100)
    y = _fake_run("y", 100)
    _fake_run("z", 90)
    assert standing(x).rank == standing(y).rank == 2
    assert standing(x).percentile == pytest.approx(100 * 2 / 3)
    board = leaderboard("c")
    assert [(e.rank, e.model) for e in board.entries] == [(1, "z"), (2, "x"), (2, "y")]


def test_incorrect_runs_have_no_standing(tmp_path):
    open_database(tmp_path / "none.db")
    assert standing(_fake_run("q", None, Verdict.INCORRECT)) is None


def test_leaderboard_ranks_best_fuel_with_counts_ratio_and_over_ceiling_apart(tmp_path):
    open_database(tmp_path / "board.db")
    _fake_run("slow", 400)
    _fake_run("fast", 100, minutes=5)
    best_fast = _fake_run("fast", 80, minutes=10)
    _fake_run("fast", None, Verdict.INCORRECT)
    _fake_run("lazy", None, Verdict.OVER_CEILING, percent_over=50.0)
    _fake_run("other-case", 1, case="different")
    board = leaderboard("c")
    assert [(e.model, e.fuel, e.runs) for e in board.entries] == [("fast", 80, 3), ("slow", 400, 1)]
    assert board.entries[0].run_id == best_fast
    assert board.entries[1].ratio == pytest.approx(5.0)
    assert [(e.model, e.percent_over) for e in board.over_ceiling] == [("lazy", 50.0)]


def test_report_not_stored_when_build_is_not_allowed(tmp_path, writer):
    from lattice_desktop.errors import UserError

    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    sub = load_submission(write_submission(tmp_path / "sub", ECHO, build=True))
    with pytest.raises(UserError):
        grade_and_store(case, sub, writer=writer)
    assert list_runs() == []
    assert grade(case, sub, allow_build=True, allow_unisolated=True).verdict is Verdict.CORRECT


def test_a_locked_database_is_a_clear_error_and_nothing_is_lost(tmp_path):
    path = tmp_path / "locked.db"
    db = open_database(path, busy_timeout=0.2)
    writer = Writer(db)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    sub = load_submission(write_submission(tmp_path / "sub", ECHO))
    first = grade_and_store(case, sub, writer=writer)
    other = sqlite3.connect(path)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StorageError, match="locked by another program"):
            grade_and_store(case, sub, writer=writer)
    finally:
        other.rollback()
        other.close()
    assert [r.id for r in list_runs()] == [first.run_id]
    assert load_run(first.run_id).results == first.report.results
    writer.close()
