"""Issue 9 item 5: a run's field is keyed by the case's content, not only its name.

Today a submission shipping its own trivial case under the bundled case's name, version
and variant ranks in the same field as everyone graded on the real case (it ranked #1
above sample-lines), and `case = "..."` resolves against the current directory."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store import migrations
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from lattice_desktop.store.schema import Run
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import ECHO, SLOW_ECHO, write_case, write_submission

REAL = """
[[case]]
name = "hello"
kind = "smoke"
behaviour = "echoes a short input"
input = "hello"
expected = "hello"

[[case]]
name = "long"
kind = "stress"
input = "a somewhat longer input string"
expected = "a somewhat longer input string"
"""
TRIVIAL = REAL.replace("a somewhat longer input string", "x")


def _grade(writer, case_dir, sub_dir):
    return grade_and_store(load_case(case_dir / "case.toml"), load_submission(sub_dir), writer=writer).run_id


def test_runs_of_different_case_content_under_one_name_are_never_ranked_together(tmp_path):
    writer = Writer(open_database(tmp_path / "l.db"))
    write_case(tmp_path / "real", REAL, fuel_limit=10**6)
    write_case(tmp_path / "fake", TRIVIAL, fuel_limit=10**6)
    honest = _grade(
        writer, tmp_path / "real", write_submission(tmp_path / "honest", SLOW_ECHO, model="honest")
    )
    cheat = _grade(writer, tmp_path / "real", write_submission(tmp_path / "c0", SLOW_ECHO, model="other"))
    cheat = _grade(writer, tmp_path / "fake", write_submission(tmp_path / "cheat", ECHO, model="cheat"))
    assert standing(cheat).of == 1  # alone in its field
    assert standing(honest).of == 2
    real_hash = load_case(tmp_path / "real").manifest_hash
    board = leaderboard("echo", content=real_hash)
    assert [e.model for e in board.entries] == ["honest", "other"]
    assert board.content == real_hash and board.other_contents == 1
    default = leaderboard("echo")  # the first-registered content, not the newest run's (issue 19.9)
    assert [e.model for e in default.entries] == ["honest", "other"] and default.content == real_hash
    fake = leaderboard("echo", content=load_case(tmp_path / "fake").manifest_hash)
    assert [e.model for e in fake.entries] == ["cheat"] and fake.unregistered
    writer.close()


def test_the_cli_leaderboard_names_the_content_it_ranks(tmp_path):
    db = tmp_path / "l.db"
    writer = Writer(open_database(db))
    write_case(tmp_path / "real", REAL, fuel_limit=10**6)
    write_case(tmp_path / "fake", TRIVIAL, fuel_limit=10**6)
    _grade(writer, tmp_path / "real", write_submission(tmp_path / "honest", SLOW_ECHO, model="honest"))
    _grade(writer, tmp_path / "fake", write_submission(tmp_path / "cheat", ECHO, model="cheat"))
    writer.close()
    real_hash = load_case(tmp_path / "real").manifest_hash
    done = subprocess.run(
        [sys.executable, "-m", "lattice_desktop.cli.main", "leaderboard", "echo", "--db", str(db)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"content {real_hash[:12]}" in done.stdout
    assert "honest" in done.stdout and "cheat" not in done.stdout.split("\n", 1)[1].split("other content")[0]
    assert "1 other content" in done.stdout
    fake = subprocess.run(
        [
            sys.executable,
            "-m",
            "lattice_desktop.cli.main",
            "leaderboard",
            "echo",
            "--content",
            load_case(tmp_path / "fake").manifest_hash[:10],
            "--db",
            str(db),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fake.returncode == 0, fake.stderr
    assert "cheat" in fake.stdout and "honest" not in fake.stdout


def test_a_submissions_case_resolves_next_to_its_own_manifest(tmp_path):
    sub = write_submission(tmp_path / "sub", ECHO, model="m")
    write_case(sub / "mycase", REAL, fuel_limit=10**6)
    text = (sub / "submission.toml").read_text().replace('model = "m"', 'model = "m"\ncase = "mycase"')
    (sub / "submission.toml").write_text(text)
    elsewhere = tmp_path / "elsewhere"
    write_case(
        elsewhere / "mycase", REAL.replace('expected = "hello"', 'expected = "nope"'), fuel_limit=10**6
    )  # a decoy in the cwd
    done = subprocess.run(
        [sys.executable, "-m", "lattice_desktop.cli.main", "grade", str(sub), "--no-store"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "correct" in done.stdout


def test_migration_gives_every_stored_run_its_case_content(tmp_path):
    path = tmp_path / "old.db"
    db = open_database(path, recover=False)
    writer = Writer(db)
    write_case(tmp_path / "real", REAL, fuel_limit=10**6)
    run_id = _grade(
        writer, tmp_path / "real", write_submission(tmp_path / "honest", SLOW_ECHO, model="honest")
    )
    writer.close()
    db.close()
    old = sqlite3.connect(path)
    for (index,) in old.execute(
        "select name from sqlite_master where type = 'index' and tbl_name = 'run' and sql like '%case_hash%'"
    ).fetchall():
        old.execute(f'drop index "{index}"')  # as a database from before migration 3
    old.execute("alter table run drop column case_hash")
    old.execute("update schema_version set version = 2")
    old.commit()
    old.close()
    open_database(path)
    assert migrations.current_version(Run._meta.database) == migrations.LATEST
    assert Run.get_by_id(run_id).case_hash == load_case(tmp_path / "real").manifest_hash
    assert standing(run_id).of == 1
