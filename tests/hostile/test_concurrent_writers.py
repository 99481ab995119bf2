"""Several grading processes writing one database at once never lock each other out:
write transactions take the write lock first (SQLite: BEGIN IMMEDIATE, waiting on the
busy timeout; PostgreSQL: a transaction-level advisory lock), so none fails half way
through a read-then-write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import list_runs
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

ROOT = Path(__file__).resolve().parents[2]
PROCESSES, ROUNDS = 4, 10


# Each process grades its submission ROUNDS times in a row, as ROUNDS `grade` commands would,
# importing the app once instead of once a round (40 starts cost most of the test's minute).
GRADE_ROUNDS = """
import sys
from lattice_desktop.cli.main import main
rounds, words = int(sys.argv[1]), sys.argv[2:]
for number in range(1, rounds + 1):
    status = main(words)
    if status != 0:
        sys.exit(f"round {number}: exit {status}")
"""


def grade_together(db: str, case: Path, submissions: list[Path], data: Path) -> list[str]:
    """One process per submission, all started at once, each grading it ROUNDS times; the
    failures, as their stderr's last line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(data)}
    started = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                GRADE_ROUNDS,
                str(ROUNDS),
                "grade",
                str(sub),
                "--case",
                str(case),
                "--db",
                db,
                "--workers",
                "1",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for sub in submissions
    ]
    failures = []
    for process, sub in zip(started, submissions, strict=True):
        _out, err = process.communicate(timeout=300)
        if process.returncode != 0:
            failures.append(f"{sub.name}: exit {process.returncode}: {err.strip().splitlines()[-1:]}")
    return failures


def rounds_of_grading(tmp_path: Path, db: str) -> list[str]:
    case = write_case(tmp_path / "case", ECHO_CASES)
    subs = [write_submission(tmp_path / f"sub{i}", ECHO, model=f"model-{i}") for i in range(PROCESSES)]
    return grade_together(db, case, subs, tmp_path / "data")


@pytest.mark.slow
def test_four_grading_processes_share_one_sqlite_file(tmp_path):
    db = tmp_path / "shared.db"  # created by the first round's processes, all at once
    assert rounds_of_grading(tmp_path, str(db)) == []
    open_database(db)
    runs = list_runs()
    assert len(runs) == PROCESSES * ROUNDS
    assert {r.verdict for r in runs} == {Verdict.CORRECT}


@pytest.mark.postgres
def test_four_grading_processes_share_one_postgres_database(tmp_path, pg_url):
    assert rounds_of_grading(tmp_path, pg_url) == []
    db = open_database(pg_url)
    with db_proxy.bound(db):
        runs = list_runs()
    assert len(runs) == PROCESSES * ROUNDS
    assert {r.verdict for r in runs} == {Verdict.CORRECT}
    db.close()
