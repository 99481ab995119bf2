"""One id for every stored run, graded or harness: never shared, never reused (also after a
delete), and every command that names a run by id takes a harness run too. An older
database, whose two id sequences overlap, migrates without losing a row."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest
from peewee import fn

from lattice_desktop.cli.main import main
from lattice_desktop.harness import parse_box
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import RESOURCES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.database import open_database
from lattice_desktop.store.database_url import connect_url
from lattice_desktop.store.harness_runs import list_harness_runs, score_text
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.migrations import LATEST, migrate
from lattice_desktop.store.run_numbers import RunNumber
from lattice_desktop.store.schema import Run, SchemaVersion
from lattice_desktop.store.transcripts import TranscriptIndex
from lattice_desktop.store.writer import Writer
from tests.core.harness_import import import_run
from tests.core.test_store import _fake_run
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

BOX = RESOURCES / "harness" / "webshop.box.toml"
TRACES = RESOURCES / "harness" / "traces"


@pytest.fixture
def mixed(tmp_path, capsys):
    """A database holding a graded run, then two harness runs imported through the CLI; the
    --db arguments and the three ids, in the order they were stored."""
    db = ["--db", str(tmp_path / "runs.db")]
    case = str(write_case(tmp_path / "case", ECHO_CASES))
    assert main(["grade", str(write_submission(tmp_path / "a", ECHO)), "--case", case, *db]) == 0
    traces = [str(TRACES / "clean.jsonl"), str(TRACES / "user_only.jsonl")]
    assert main(["harness", "import", *traces, "--box", str(BOX), *db]) == 0
    out = capsys.readouterr().out
    harness_ids = [int(line.rsplit(" ", 1)[1]) for line in out.splitlines() if line.startswith("stored")]
    open_database(db[1])
    (graded_id,) = [r.id for r in Run.select(Run.id)]
    return db, [graded_id, *harness_ids]


def _json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_graded_and_harness_runs_never_share_an_id(mixed, capsys):
    db, ids = mixed
    assert len(set(ids)) == 3 and ids == sorted(ids)
    listed = _json(capsys, "runs", "--json", *db)
    assert [(r["run_id"], r["kind"]) for r in listed] == [
        (ids[2], "harness"),
        (ids[1], "harness"),
        (ids[0], "graded"),
    ]
    shown = _json(capsys, "show", str(ids[1]), "--json", *db)
    assert shown["kind"] == "harness" and shown["result"]["metrics"]["score"]["value"] == 1.0
    assert main(["show", str(ids[1]), *db]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"run {ids[1]} · harness run") and "Score" in text
    assert _json(capsys, "show", str(ids[0]), "--json", *db)["run_id"] == ids[0]


def test_hide_unhide_delete_and_export_take_a_harness_run(mixed, capsys, tmp_path):
    db, (graded_id, clean_id, user_id) = mixed
    assert main(["hide", str(clean_id), *db]) == 0
    assert capsys.readouterr().out.startswith("hid 1 run")
    assert [r["run_id"] for r in _json(capsys, "runs", "--json", *db)] == [user_id, graded_id]
    hidden = [r for r in _json(capsys, "runs", "--json", "--all", *db) if r["hidden"]]
    assert [r["run_id"] for r in hidden] == [clean_id]
    assert main(["unhide", str(clean_id), *db]) == 0
    assert capsys.readouterr().out.startswith("1 run shown again")
    assert len(_json(capsys, "runs", "--json", *db)) == 3

    out = tmp_path / "run.csv"
    html = tmp_path / "r.html"
    assert main(["export", "run", str(clean_id), "--csv", str(out), "--html", str(html), *db]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {r["run"] for r in rows} == {str(clean_id)}
    assert rows[0]["metric"] == "score" and rows[-1]["metric"] == "execution"
    assert f"Run {clean_id}" in html.read_text()
    assert main(["export", "runs", "--csv", str(out), *db]) == 0
    listed = {int(r["run"]): r["kind"] for r in csv.DictReader(io.StringIO(out.read_text()))}
    assert listed == {graded_id: "graded", clean_id: "harness", user_id: "harness"}

    assert TranscriptIndex.get_or_none(TranscriptIndex.run == user_id) is not None
    assert main(["delete", str(user_id), "--yes", *db]) == 0
    assert TranscriptIndex.get_or_none(TranscriptIndex.run == user_id) is None  # its transcript too
    capsys.readouterr()
    assert main(["show", str(user_id), *db]) == 2
    assert "deleted" in capsys.readouterr().err
    # The largest id was deleted: the next run, of either kind, gets a new one.
    assert main(["harness", "import", str(TRACES / "nothing.jsonl"), "--box", str(BOX), *db]) == 0
    assert capsys.readouterr().out.strip() == f"stored harness run {user_id + 1}"


def test_every_harness_leaderboard_row_names_its_run(mixed, capsys):
    db, (_graded, clean_id, user_id) = mixed
    assert main(["harness", "leaderboard", *db]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.strip()[:1].isdigit()]
    assert rows and {int(row[-1]) for row in rows} <= {clean_id, user_id}
    assert int(rows[0][-1]) == clean_id  # Score 1.00 above Score 0.40


def test_a_deleted_run_id_is_never_given_again(tmp_path):
    writer = Writer(open_database(tmp_path / "ids.db"))
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    first = grade_and_store(case, load_submission(write_submission(tmp_path / "a", ECHO)), writer=writer)
    from lattice_desktop.store.runs import delete_runs

    writer.call(delete_runs, [first.run_id])
    second = grade_and_store(case, load_submission(write_submission(tmp_path / "b", ECHO)), writer=writer)
    harness = writer.call(import_run, BOX, TRACES / "clean.jsonl")
    writer.close()
    assert first.run_id < second.run_id < harness


def _old_harness_row(trace):
    """A harness run inserted as version 6 did: its id from its own table's sequence."""
    scored = score_text(
        parse_box(BOX.read_text(), source=str(BOX)), BOX.read_text(), str(trace), trace.read_text()
    )
    return HarnessRun.insert(
        box=scored.result.box,
        stage=scored.result.stage,
        harness=scored.result.harness,
        model=scored.result.model,
        score=scored.result.metrics["score"].value,
        box_source=scored.box_source,
        box_text=scored.box_text,
        trace_source=scored.trace_source,
        trace_text=scored.trace_text,
        result_json=scored.result.to_json(),
        imported=datetime.now(UTC),
    ).execute()


def _old_database(db):
    """Schema version 6, as stored before harness runs shared the id sequence: graded runs
    1-3 and harness runs 1-2 (ids that collide), the harness table without `hidden`."""
    db_proxy.initialize(db)
    db.connect(reuse_if_open=True)
    migrate(db, target=6)
    db.execute_sql('ALTER TABLE harness_run DROP COLUMN "hidden"')
    graded = [_fake_run(model, 100 + i) for i, model in enumerate("abc")]
    harness = [_old_harness_row(TRACES / name) for name in ("clean.jsonl", "looping.jsonl")]
    assert harness == [1, 2] and graded == [1, 2, 3]
    before = {
        "graded": list(Run.select(Run.id, Run.model).order_by(Run.id).tuples()),
        "harness": list(HarnessRun.select(HarnessRun.trace_source).order_by(HarnessRun.id).tuples()),
    }
    db.close()
    return before


def _assert_migrated(target, before):
    open_database(target)
    assert SchemaVersion.get().version == LATEST
    assert list(Run.select(Run.id, Run.model).order_by(Run.id).tuples()) == before["graded"]
    moved = list(HarnessRun.select(HarnessRun.id, HarnessRun.trace_source).order_by(HarnessRun.id).tuples())
    assert [source for _id, source in moved] == [source for (source,) in before["harness"]]
    largest = max(run_id for run_id, _model in before["graded"])
    assert [run_id for run_id, _source in moved] == [largest + 1, largest + 2]
    numbers = dict(RunNumber.select(RunNumber.id, RunNumber.kind).tuples())
    assert numbers == {
        **{run_id: "graded" for run_id, _ in before["graded"]},
        **{run_id: "harness" for run_id, _ in moved},
    }
    assert [h.id for h in list_harness_runs()] == [largest + 2, largest + 1]
    fresh = import_run(BOX, TRACES / "nothing.jsonl")
    assert fresh == RunNumber.select(fn.MAX(RunNumber.id)).scalar() == largest + 3


def test_an_older_sqlite_database_migrates_to_one_id_sequence(tmp_path):
    target = str(tmp_path / "old.db")
    from lattice_desktop.store.database import LenientSqliteDatabase

    before = _old_database(LenientSqliteDatabase(target, pragmas={"foreign_keys": 1}))
    _assert_migrated(target, before)


@pytest.mark.postgres
def test_an_older_postgres_database_migrates_to_one_id_sequence(pg_url):
    before = _old_database(connect_url(pg_url))
    _assert_migrated(pg_url, before)
