"""Stored data is never held hostage: a row another program damaged is shown as unknown, a
foreign SQLite file is refused untouched, a text schema version and a full disk are clear errors."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.errors import StorageError
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.schema import Run
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission
from tests.hostile.test_storage import first_run, table_counts


def damage(path: Path, *statements: str) -> None:
    """Change rows behind the app's back, as another program (or a newer version) would."""
    Run._meta.database.close()
    with sqlite3.connect(path) as db:
        for statement in statements:
            db.execute(statement)


def two_runs(tmp_path: Path) -> Path:
    path = tmp_path / "runs.db"
    first_run(tmp_path, path)
    writer = Writer(open_database(path))
    case = load_case(write_case(tmp_path / "first-case", ECHO_CASES))
    grade_and_store(
        case, load_submission(write_submission(tmp_path / "b", ECHO, model="model-b")), writer=writer
    )
    writer.close()
    return path


DAMAGE = (
    "update run set verdict = 'exploded', started = 'yesterday', finished = '2026-13-45 99:00' where id = 1",
    "update case_result set outcome = 'vanished' where run_id = 1 and position = 0",
    "update run set finished = 'soon' where id = 2",
)


def test_unknown_words_and_unreadable_times_read_back_as_unknown(tmp_path):
    path = two_runs(tmp_path)
    damage(path, *DAMAGE)
    open_database(path)
    runs = {r.id: r for r in list_runs()}
    assert runs[1].verdict is Verdict.UNKNOWN and runs[1].started is None and runs[1].finished is None
    assert runs[2].verdict is Verdict.CORRECT and runs[2].finished is None and runs[2].started
    stored = load_run(1)
    assert stored.summary.verdict is Verdict.UNKNOWN and stored.summary.started is None
    assert [r.outcome for r in stored.results][:2] == [Outcome.UNKNOWN, Outcome.PASS]
    assert Outcome.UNKNOWN.look.text == "? unknown" and Verdict.UNKNOWN.look.text == "? unknown"
    board = leaderboard("echo")
    assert [(e.model, e.date) for e in board.entries] == [("model-b", None)]


def test_runs_show_and_leaderboard_print_a_damaged_row_as_unknown(tmp_path, capsys):
    path = two_runs(tmp_path)
    damage(path, *DAMAGE)
    db = ["--db", str(path)]
    assert main(["runs", *db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and "? unknown" in lines[2] and "✓ correct" in lines[1]
    assert main(["show", "1", *db]) == 0
    out = capsys.readouterr().out
    assert "? unknown" in out and "✓ pass" in out
    assert main(["show", "1", "--json", *db]) == 0
    assert '"outcome": "unknown"' in capsys.readouterr().out
    assert main(["leaderboard", "echo", *db]) == 0
    assert "model-b" in capsys.readouterr().out


def test_the_app_lists_and_opens_a_damaged_run(qtbot, tmp_path, settings):
    from lattice_desktop.ui.common.delegates import CHIP_ROLE
    from lattice_desktop.ui.window.main_window import MainWindow
    from tests.ui.conftest import import_harness_into

    path = two_runs(tmp_path)
    harness = import_harness_into(path, "clean")["clean"]
    damage(path, *DAMAGE, f"update harness_run set imported = 'last week' where id = {harness}")
    window = MainWindow(str(path), demo=None, auto_demo=False, settings=settings)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.runs_loaded, timeout=10_000)
    model = window.runs_panel.model
    leaf = model.index_of_run(1)
    chip = leaf.siblingAtColumn(1).data(CHIP_ROLE)
    assert (chip.symbol, chip.label) == ("?", "unknown")
    assert [leaf.siblingAtColumn(c).data() for c in range(model.columnCount())][-1] == "unknown"
    assert model.index_of_harness_run(harness).siblingAtColumn(3).data() == "unknown"
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.runs_panel.select_run(1)
    assert window.header.chip.text() == "? unknown"
    assert "unknown" in window.header.subtitle.text()
    smoke = window.results_tab.smoke_model
    assert smoke.index(0, smoke.column("Outcome")).data() == "? unknown"


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def test_a_text_schema_version_is_a_clear_error_and_changes_nothing(tmp_path, capsys):
    path = tmp_path / "runs.db"
    first_run(tmp_path, path)
    damage(path, "update schema_version set version = 'two'")
    counts = table_counts(path)
    with pytest.raises(StorageError, match="schema_version holds 'two', not a version number") as caught:
        open_database(path)
    assert str(path) in str(caught.value)
    assert main(["runs", "--db", str(path)]) == 2
    assert "not a version number" in capsys.readouterr().err
    assert table_counts(path) == counts


def foreign_file(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        db.execute("create table contacts (name text, phone text)")
        db.execute("create table notes (body text)")
        db.executemany("insert into contacts values (?, ?)", [("Ada", "1"), ("Alan", "2")])
    return path.read_bytes()


def test_a_foreign_sqlite_file_is_refused_and_left_byte_for_byte_unchanged(tmp_path, capsys):
    path = tmp_path / "address-book.sqlite"
    before = foreign_file(path)
    with pytest.raises(StorageError, match=r"belongs to another program \(tables contacts, notes\)"):
        open_database(path)
    assert main(["runs", "--db", str(path)]) == 2
    assert "belongs to another program" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["address-book.sqlite"]  # no -wal, no -shm
    with sqlite3.connect(path) as db:
        assert db.execute("pragma journal_mode").fetchone() == ("delete",)


def test_an_empty_file_and_our_own_database_still_open(tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    open_database(empty)
    ours = tmp_path / "ours.db"
    stored = first_run(tmp_path, ours)
    open_database(ours)
    assert load_run(stored.run_id).summary.verdict is Verdict.CORRECT


def test_a_full_database_says_disk_full_and_keeps_what_was_stored(tmp_path, monkeypatch):
    """SQLite's max_page_count stands in for a full disk: the same SQLITE_FULL error."""
    from lattice_desktop.services import grading as session

    monkeypatch.setattr(session, "unstored_reports_dir", lambda: tmp_path / "kept")
    path = tmp_path / "runs.db"
    stored = first_run(tmp_path, path)
    db = open_database(path)
    pages = db.execute_sql("pragma page_count").fetchone()[0]
    db.pragma("max_page_count", pages, permanent=True)  # every new connection: no room to grow
    writer = Writer(db)
    case = load_case(write_case(tmp_path / "big-case", ECHO_CASES.replace("hello", "h" * 20000)))
    with pytest.raises(StorageError, match="the disk holding the database is full") as caught:
        grade_and_store(case, load_submission(write_submission(tmp_path / "s", ECHO)), writer=writer)
    writer.close()
    assert "rollback" not in str(caught.value) and "the graded report was kept in" in str(caught.value)
    assert len(list((tmp_path / "kept").iterdir())) == 1
    Run._meta.database.close()
    open_database(path)
    runs = list_runs()
    assert [r.id for r in runs] == [stored.run_id + 1, stored.run_id]
    assert not load_run(stored.run_id + 1).results  # begun, never half-written
    assert load_run(stored.run_id).results == stored.report.results


def can_mount_tmpfs(folder: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], check=False, capture_output=True
        ).returncode
        == 0
    )


def test_a_really_full_disk_says_disk_full(tmp_path, capsys):
    """A 1 MiB tmpfs (as root) filled to the last block: grading into it says the disk is full."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    if not can_mount_tmpfs(folder):
        pytest.skip("needs root to mount a small tmpfs")
    try:
        path = folder / "runs.db"
        first_run(tmp_path, path)
        with open(folder / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        case = write_case(tmp_path / "case", ECHO_CASES)
        sub = write_submission(tmp_path / "sub", ECHO)
        assert main(["grade", str(sub), "--case", str(case), "--db", str(path)]) == 2
        err = capsys.readouterr().err
        assert "the disk holding the database is full" in err and "rollback" not in err, err
        (folder / "filler").unlink()
        assert main(["runs", "--db", str(path)]) == 0
        assert len(capsys.readouterr().out.splitlines()) == 2  # the header and the first run
    finally:
        Run._meta.database.close()
        subprocess.run(["umount", "-l", str(folder)], check=True)


def test_a_harness_run_with_an_unreadable_time_still_lists_and_ranks(tmp_path, capsys):
    from lattice_desktop.store.harness_runs import list_harness_runs
    from tests.ui.conftest import import_harness_into

    path = tmp_path / "runs.db"
    ids = import_harness_into(path, "clean", "looping")
    damage(path, f"update harness_run set imported = 'last week' where id = {ids['clean']}")
    open_database(path)
    imported = {h.id: h.imported for h in list_harness_runs()}
    assert imported[ids["clean"]] is None and imported[ids["looping"]] is not None
    assert main(["harness", "leaderboard", "--db", str(path)]) == 0
    assert "tidy-agent" in capsys.readouterr().out


def test_text_in_a_number_column_reads_back_as_no_figure(tmp_path, capsys):
    """SQLite keeps `'lots'` in an integer column; it is shown as "-" and ranks nowhere."""
    path = two_runs(tmp_path)
    damage(
        path,
        "update run set score = 'lots', stress_fuel = 'many', max_percent_over = 'x' where id = 2",
        "update case_result set fuel = 'much' where run_id = 2 and position = 0",
    )
    open_database(path)
    runs = {r.id: r for r in list_runs()}
    assert (runs[2].score, runs[2].stress_fuel, runs[2].max_percent_over) == (None, None, None)
    assert load_run(2).results[0].fuel is None and load_run(1).results[0].fuel is not None
    assert [e.model for e in leaderboard("echo").entries] == ["model-a"]
    db = ["--db", str(path)]
    assert main(["runs", *db]) == 0 and main(["show", "2", *db]) == 0
    assert main(["leaderboard", "echo", *db]) == 0
    out = capsys.readouterr().out
    assert "model-a" in out and "lots" not in out
