"""Each Writer is bound to its own database: opening another one later (as a test, a
second window or a CLI command in the same process would) never redirects its writes."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import RESOURCES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import list_harness_runs
from lattice_desktop.store.queries import list_runs
from lattice_desktop.store.writer import Writer
from tests.core.harness_import import import_run
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

BOX = RESOURCES / "harness" / "webshop.box.toml"
TRACES = sorted((RESOURCES / "harness" / "traces").glob("*.jsonl"))


def rows(path, table: str) -> int:
    """Counted with sqlite3 itself, not through our tables."""
    with sqlite3.connect(path) as con:
        return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_a_writer_keeps_writing_its_own_database_after_another_is_opened(tmp_path):
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    db_a = open_database(a)
    writer_a = Writer(db_a)
    db_b = open_database(b)  # threads without a database of their own now read b
    writer_b = Writer(db_b)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    sub = load_submission(write_submission(tmp_path / "sub", ECHO))
    stored = grade_and_store(case, sub, writer=writer_a)
    harness_id = writer_a.call(import_run, BOX, TRACES[0])
    writer_b.call(import_run, BOX, TRACES[1])
    writer_a.close()
    writer_b.close()
    assert (rows(a, "run"), rows(a, "case_result"), rows(a, "harness_run")) == (1, 2, 1)
    assert (rows(b, "run"), rows(b, "case_result"), rows(b, "harness_run")) == (0, 0, 1)
    assert list_runs() == []  # this thread reads the database opened last: b
    with db_proxy.bound(db_a):
        assert [r.id for r in list_runs()] == [stored.run_id]
        assert [h.id for h in list_harness_runs()] == [harness_id]
    assert len(list_harness_runs()) == 1  # b's


def test_two_writers_writing_at_once_stay_apart(tmp_path):
    paths = [tmp_path / "one.db", tmp_path / "two.db"]
    writers = [Writer(open_database(p)) for p in paths]
    errors: list[BaseException] = []

    def import_all(writer: Writer, traces) -> None:
        try:
            for trace in traces:
                writer.call(import_run, BOX, trace)
        except BaseException as exc:  # reported below, with the thread's failure
            errors.append(exc)

    threads = [
        threading.Thread(target=import_all, args=(w, TRACES[: 2 + 3 * i])) for i, w in enumerate(writers)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in writers:
        w.close()
    assert errors == []
    assert [rows(p, "harness_run") for p in paths] == [2, 5]


@pytest.mark.postgres
def test_a_writer_on_postgres_beside_an_sqlite_file(tmp_path, pg_url):
    db_pg = open_database(pg_url)
    writer_pg = Writer(db_pg)
    sqlite_file = tmp_path / "local.db"
    open_database(sqlite_file)
    writer_pg.call(import_run, BOX, TRACES[0])
    writer_pg.close()
    assert rows(sqlite_file, "harness_run") == 0
    with db_proxy.bound(db_pg):
        assert len(list_harness_runs()) == 1
    db_pg.close()
