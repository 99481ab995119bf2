"""A stream the grader cannot write never changes a verdict: with stderr on a full device
(`2>/dev/full`) a correct run used to be stored as `! internal error`, exit 1. Progress lines
are only for a reader; a stderr that takes none drops them, a closed one too. A stdout that
cannot take the results loses them, not the stored run, and the command says so with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

ROOT = Path(__file__).resolve().parents[2]
FULL = Path("/dev/full")
pytestmark = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full (Linux)")


def lattice(*args: str, stdout=subprocess.PIPE, stderr=subprocess.PIPE, shell_redirect: str = ""):
    """`lattice-desktop ARGS` in a fresh process, its streams as given (`shell_redirect`, such as
    `2>&-`, closes a descriptor before Python starts)."""
    command = [sys.executable, "-m", "lattice_desktop", *args]
    if shell_redirect:
        command = ["sh", "-c", f'exec "$@" {shell_redirect}', "sh", *command]
    return subprocess.run(
        command,
        stdout=stdout,
        stderr=stderr,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )


@pytest.fixture
def echo(tmp_path) -> tuple[str, str]:
    """A correct submission and its case, as command-line arguments."""
    case = write_case(tmp_path / "case", ECHO_CASES)
    return str(write_submission(tmp_path / "sub", ECHO)), str(case)


def stored_verdicts() -> list[str]:
    """Every stored run's verdict, read by a process of its own."""
    done = lattice("runs", "--all", "--json")
    assert done.returncode == 0, done.stderr
    return [row["verdict"] for row in json.loads(done.stdout)]


def closed_pipe() -> int:
    """The write end of a pipe whose reader has already gone."""
    read, write = os.pipe()
    os.close(read)
    return write


def test_a_full_stderr_changes_no_verdict(echo):
    submission, case = echo
    with FULL.open("w") as full:
        done = lattice("grade", submission, "--case", case, "--json", stderr=full)
    assert done.returncode == 0
    assert json.loads(done.stdout)["verdict"] == "correct"  # the results still went out
    assert stored_verdicts() == ["correct"]


def test_a_stderr_whose_reader_left_changes_no_verdict(echo):
    submission, case = echo
    write = closed_pipe()
    try:
        done = lattice("grade", submission, "--case", case, "--json", stderr=write)
    finally:
        os.close(write)
    assert done.returncode == 0
    assert json.loads(done.stdout)["verdict"] == "correct"
    assert stored_verdicts() == ["correct"]


def test_a_closed_stderr_changes_no_verdict_and_leaks_nothing_into_stdout(echo):
    submission, case = echo
    done = lattice("grade", submission, "--case", case, "--json", shell_redirect="2>&-")
    assert done.returncode == 0
    # Progress once fell back to stdout (print(file=None)) and broke the JSON.
    assert json.loads(done.stdout)["verdict"] == "correct"
    assert stored_verdicts() == ["correct"]


def test_a_full_stdout_loses_the_results_but_not_the_run(echo):
    submission, case = echo
    with FULL.open("w") as full:
        done = lattice("grade", submission, "--case", case, "--json", stdout=full)
    assert done.returncode == 2
    assert b"could not write the results to standard output" in done.stderr
    assert b"internal error" not in done.stderr
    assert stored_verdicts() == ["correct"]


def test_both_streams_unwritable(echo):
    submission, case = echo
    with FULL.open("w") as full:
        done = lattice("grade", submission, "--case", case, stdout=full, stderr=full)
    assert done.returncode == 2
    assert stored_verdicts() == ["correct"]
