"""One bad submission never sinks a grade or a batch: a shipped module that is a symlink loop
or a folder is that submission's build failure, with its place; and a reader that goes away
(`grade … 2>&1 | head -1`) changes neither the verdict that is stored nor the exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lattice_desktop.cli.common import VERDICT_EXIT
from lattice_desktop.cli.main import main
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import list_runs, load_run
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

ROOT = Path(__file__).resolve().parents[2]


def loop(folder: Path) -> None:
    (folder / "module.wasm").unlink()
    os.symlink("other.wasm", folder / "module.wasm")
    os.symlink("module.wasm", folder / "other.wasm")


def directory(folder: Path) -> None:
    (folder / "module.wasm").unlink()
    (folder / "module.wasm").mkdir()
    (folder / "module.wasm" / "inside").write_bytes(b"\0asm")


BAD = {"symlink loop": loop, "directory": directory}


@pytest.mark.parametrize("shape", BAD)
def test_grade_of_a_bad_shipped_module_is_a_located_build_failure(tmp_path, capsys, shape):
    case = write_case(tmp_path / "case", ECHO_CASES)
    submission = write_submission(tmp_path / "bad", ECHO)
    BAD[shape](submission)
    code = main(["grade", str(submission), "--case", str(case), "--db", str(tmp_path / "runs.db")])
    captured = capsys.readouterr()
    assert code == VERDICT_EXIT[Verdict.BUILD_FAILED], captured.err
    assert "internal error" not in captured.err and "Traceback" not in captured.err
    assert "module.wasm" in captured.out and "build" in captured.out
    open_database(tmp_path / "runs.db")
    (run,) = list_runs()
    assert run.verdict is Verdict.BUILD_FAILED
    stored = load_run(run.id)
    assert stored.build_ok is False and "module.wasm" in stored.build_detail
    assert {r.outcome for r in stored.results} <= {Outcome.BUILD_FAILURE, Outcome.SKIPPED}


def test_a_batch_grades_the_good_submissions_around_the_bad_ones(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    field = tmp_path / "field"
    for index in range(13):
        write_submission(field / f"good-{index:02}", ECHO, model=f"model-{index:02}")
    for shape, spoil in BAD.items():
        spoil(write_submission(field / f"bad-{shape.replace(' ', '-')}", ECHO, model=f"bad-{shape}"))
    db = tmp_path / "runs.db"
    code = main(["grade-batch", str(field), "--case", str(case), "--db", str(db), "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err
    open_database(db)
    runs = list_runs()
    verdicts = {r.model: r.verdict for r in runs}
    assert len(runs) == 15
    assert sorted(m for m, v in verdicts.items() if v is Verdict.CORRECT) == [
        f"model-{i:02}" for i in range(13)
    ]
    for shape in BAD:
        assert verdicts[f"bad-{shape}"] is Verdict.BUILD_FAILED
        bad = next(r for r in runs if r.model == f"bad-{shape}")
        assert "module.wasm" in load_run(bad.id).build_detail


@pytest.mark.parametrize("command", ["grade", "grade-batch"])
def test_a_closed_stderr_pipe_changes_neither_verdict_nor_exit_code(tmp_path, command):
    case = write_case(tmp_path / "case", ECHO_CASES)
    submission = write_submission(tmp_path / "good", ECHO)
    db = tmp_path / "runs.db"
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write finds the pipe closed
    argv = [sys.executable, "-m", "lattice_desktop", command, str(submission), "--case", str(case)]
    try:
        done = subprocess.run(
            [*argv, "--db", str(db)],
            check=False,
            stdout=write,
            stderr=write,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=300,
        )
    finally:
        os.close(write)
    assert done.returncode == 0
    open_database(db)
    (run,) = list_runs()
    assert run.verdict is Verdict.CORRECT
    assert len(load_run(run.id).results) == 2
