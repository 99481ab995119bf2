"""Storage under attack: the grader killed with SIGKILL in every phase, a locked or
read-only database (as root too), an older schema, a migration that fails half way."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lattice_desktop.errors import StorageError
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store import migrations
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.schema import Run
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work
from tests.core.test_store import KILLED_GRADER
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission
from tests.hostile.test_builds import build_folder, processes_running
from tests.hostile.test_modules import many_functions

# The core suite's kill -9 grader, extended: builds allowed, so the build phase can be hit.
KILLED_BUILDING_GRADER = KILLED_GRADER.replace(
    "writer=writer)", "writer=writer, allow_build=True, allow_unisolated=True)"
)
assert KILLED_BUILDING_GRADER != KILLED_GRADER


def table_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type = 'table'")]
        return {t: db.execute(f'select count(*) from "{t}"').fetchone()[0] for t in tables}


def integrity(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return db.execute("pragma integrity_check").fetchone()[0]


def first_run(tmp_path, db_path: Path):
    """One finished run already in the database: the data a crash must not touch."""
    writer = Writer(open_database(db_path))
    case = load_case(write_case(tmp_path / "first-case", ECHO_CASES))
    stored = grade_and_store(
        case, load_submission(write_submission(tmp_path / "first-sub", ECHO)), writer=writer
    )
    writer.close()
    Run._meta.database.close()
    return stored


def spin_submission(folder: Path) -> Path:
    return write_submission(folder, SLOW_ECHO.replace("(i32.const 100)", "(i32.const 100000000)"))


def compile_bomb_submission(folder: Path) -> Path:
    write_submission(folder, ECHO)
    (folder / "module.wasm").write_bytes(many_functions(6000, 100))
    return folder


PHASES = {
    "build": lambda folder, token: build_folder(folder, f"sleep 9{token}"),
    "compile": lambda folder, token: compile_bomb_submission(folder),
    "run": lambda folder, token: spin_submission(folder),
}


@pytest.mark.parametrize("phase", sorted(PHASES))
def test_a_grader_killed_in_any_phase_leaves_a_consistent_database(tmp_path, phase):
    db_path = tmp_path / "killed.db"
    before = first_run(tmp_path, db_path)
    token = f"{secrets.randbelow(10**6) + 10**6}"
    sub = PHASES[phase](tmp_path / "sub", token)
    case_path = write_case(
        tmp_path / "case",
        ECHO_CASES,
        fuel_limit=10**15,
        sandbox="wall_clock_s = 600\nbuild_timeout_s = 600\ncompile_timeout_s = 600",
    )
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILDING_GRADER, str(db_path), str(case_path), str(sub)],
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            rows = sqlite3.connect(db_path).execute("select verdict from run order by id").fetchall()
            if rows == [("correct",), ("running",)]:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the grader never recorded its run")
        time.sleep(0.8)  # well into the phase
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert integrity(db_path) == "ok"
    open_database(db_path)
    runs = {r.id: r for r in list_runs()}
    assert [runs[i].verdict for i in sorted(runs)] == [Verdict.CORRECT, Verdict.INTERRUPTED]
    interrupted = max(runs)
    assert load_run(interrupted).results == []  # nothing half-written shows as a result
    assert load_run(before.run_id).results == before.report.results  # nothing lost
    # Nothing the dead grader started lives on: build jail and compile child die with it.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (processes_running(f"9{token}") or _compile_children(sub)):
        time.sleep(0.05)
    assert processes_running(f"9{token}") == []
    assert _compile_children(sub) == []


def _compile_children(sub: Path) -> list[int]:
    """Compile children of this session (their target is in this session's module cache)."""
    ours = os.environ["LATTICE_DESKTOP_CACHE"]
    found = []
    for pid in processes_running("lattice_desktop.sandbox.compile_worker"):
        try:
            if ours.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass  # it ended meanwhile
    return found


def test_a_database_locked_while_grading_is_a_clear_error_and_loses_nothing(tmp_path):
    db_path = tmp_path / "locked.db"
    before = first_run(tmp_path, db_path)
    writer = Writer(open_database(db_path, busy_timeout=0.2))
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    other = sqlite3.connect(db_path)

    def lock_when_grading(step):
        if step.item.phase == "done" and not other.in_transaction:
            other.execute("BEGIN EXCLUSIVE")

    try:
        with pytest.raises(StorageError, match="locked by another program"):
            grade_and_store(
                case,
                load_submission(write_submission(tmp_path / "sub", ECHO)),
                writer=writer,
                work=Work(lock_when_grading),
            )
    finally:
        other.rollback()
        other.close()
    writer.close()
    Run._meta.database.close()
    assert integrity(db_path) == "ok"
    open_database(db_path)
    runs = list_runs()
    assert load_run(before.run_id).results == before.report.results
    # The run whose results could not be written never shows half of them.
    assert all(load_run(r.id).results == [] for r in runs if r.id != before.run_id)


def test_a_read_only_sqlite_uri_reads_but_refuses_writes_clearly(tmp_path):
    db_path = tmp_path / "ro.db"
    before = first_run(tmp_path, db_path)
    counts = table_counts(db_path)
    db = open_database(f"file:{db_path}?mode=ro")
    assert load_run(before.run_id).results == before.report.results  # readable
    writer = Writer(db)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    with pytest.raises(StorageError, match="read-only"):
        grade_and_store(case, load_submission(write_submission(tmp_path / "sub", ECHO)), writer=writer)
    writer.close()
    db.close()
    assert table_counts(db_path) == counts


READ_ONLY_MOUNT = textwrap.dedent("""
    import subprocess, sys
    from lattice_desktop.errors import StorageError
    from lattice_desktop.store.database import open_database
    folder, db_path = sys.argv[1:3]
    subprocess.run(["mount", "--bind", "-o", "ro", folder, folder], check=True)
    for target in (db_path, folder + "/new.db"):
        try:
            open_database(target)
        except StorageError as error:
            print("StorageError:", error)
        else:
            print("opened", target)
""")


def test_a_read_only_file_system_is_a_clear_error_even_for_root(tmp_path):
    """A read-only bind mount in a private mount namespace: root cannot write through it.
    (A SQLite file open for writing cannot be remounted read-only under it: EBUSY.)"""
    if (
        shutil.which("unshare") is None
        or subprocess.run(["unshare", "--mount", "true"], check=False).returncode != 0
    ):
        pytest.skip("no mount namespaces here")
    folder = tmp_path / "dbdir"
    folder.mkdir()
    db_path = folder / "runs.db"
    before = first_run(tmp_path, db_path)
    counts = table_counts(db_path)
    done = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            sys.executable,
            "-c",
            READ_ONLY_MOUNT,
            str(folder),
            str(db_path),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(
        "StorageError:" in line and "read-only file system" in line for line in lines
    ), lines
    assert table_counts(db_path) == counts and not (folder / "new.db").exists()
    open_database(db_path)
    assert load_run(before.run_id).results == before.report.results


def test_an_older_schema_migrates_without_losing_a_row(tmp_path):
    path = tmp_path / "old.db"
    stored = first_run(tmp_path, path)
    db = open_database(path, recover=False)  # rolled back to schema 1, with its run
    db.drop_tables(migrations.MIGRATIONS[1][2].__globals__["HARNESS_TABLES"])
    migrations.SchemaVersion.update(version=1).execute()
    db.close()
    assert sqlite3.connect(path).execute("select version from schema_version").fetchone() == (1,)
    counts = table_counts(path)
    open_database(path)
    assert migrations.current_version(Run._meta.database) == migrations.LATEST
    after = table_counts(path)
    assert {t: after[t] for t in counts if t != "schema_version"} == {
        t: n for t, n in counts.items() if t != "schema_version"
    }
    assert load_run(stored.run_id).results == stored.report.results
    assert integrity(path) == "ok"


def test_a_migration_that_fails_half_way_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "half.db"
    stored = first_run(tmp_path, path)
    db = open_database(path, recover=False)  # rolled back to schema 1, with its run
    db.drop_tables(migrations.MIGRATIONS[1][2].__globals__["HARNESS_TABLES"])
    migrations.SchemaVersion.update(version=1).execute()
    db.close()
    counts = table_counts(path)

    def broken(db):
        db.execute_sql("create table half_done (x integer)")
        raise RuntimeError("disk pulled out")

    monkeypatch.setattr(migrations, "MIGRATIONS", [migrations.MIGRATIONS[0], (2, "broken", broken)])
    with pytest.raises(RuntimeError, match="disk pulled out"):  # a bug of ours: the traceback shows
        open_database(path)
    Run._meta.database.close()
    assert table_counts(path) == counts  # no half_done table, same version, same rows
    assert sqlite3.connect(path).execute("select version from schema_version").fetchone() == (1,)
    monkeypatch.undo()
    open_database(path)
    assert migrations.current_version(Run._meta.database) == migrations.LATEST
    assert load_run(stored.run_id).results == stored.report.results


def test_a_report_the_database_refuses_is_kept_on_disk(tmp_path, monkeypatch):
    """A locked database at the moment results are written loses no grading work."""
    import json
    import sqlite3

    from lattice_desktop.errors import StorageError
    from lattice_desktop.manifest import load_case, load_submission
    from lattice_desktop.services import grading as session
    from lattice_desktop.services.grading import grade_and_store
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.writer import Writer
    from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

    monkeypatch.setattr(session, "unstored_reports_dir", lambda: tmp_path / "kept")
    path = tmp_path / "db.sqlite"
    writer = Writer(open_database(path, busy_timeout=0.2))
    blocker = sqlite3.connect(path, check_same_thread=False)

    def locked_when_graded(step):
        if step.item.phase == "done":  # just before the results are written
            blocker.execute("BEGIN EXCLUSIVE")

    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    with pytest.raises(StorageError, match="kept in") as info:
        grade_and_store(
            case,
            load_submission(write_submission(tmp_path / "sub", ECHO)),
            writer=writer,
            work=Work(locked_when_graded),
        )
    blocker.rollback()
    blocker.close()
    writer.close()
    [kept] = (tmp_path / "kept").glob("run-*.json")
    assert str(kept) in str(info.value)
    data = json.loads(kept.read_text())
    assert data["verdict"] == "correct" and [r["name"] for r in data["results"]] == ["hello", "longer"]


def test_a_kept_report_stays_in_its_folder_whatever_the_model_name(tmp_path, monkeypatch):
    """The model name is the submission's text: a path in it never leads the kept report elsewhere."""
    from lattice_desktop.grading.grader import grade
    from lattice_desktop.manifest import load_case, load_submission
    from lattice_desktop.services import grading as session
    from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

    monkeypatch.setattr(session, "unstored_reports_dir", lambda: tmp_path / "kept")
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    report = grade(case, load_submission(write_submission(tmp_path / "sub", ECHO, model="../../escape/me")))
    kept = session.keep_unstored_report(7, report)
    assert kept.parent == tmp_path / "kept"
    assert kept.name.startswith("run-7-.._.._escape_me-")
    assert not (tmp_path / "escape").exists()
