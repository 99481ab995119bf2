"""Issue 24 items 1 (build part) and 7: a build that fails because the grader's machine
lacks a tool is the grader's problem, said as such, and never the submission's run.

Before: `python -m ziglang cc …` without ziglang (or a compiler not installed) was stored
as an incorrect run of the submission and counted in the leaderboard's runs; in the
bundle, `python …` failed with "python: not found" and was stored the same way."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from lattice_desktop.manifest import load_submission
from lattice_desktop.sandbox.build import build_submission
from lattice_desktop.sandbox.isolation import SWITCH, isolation
from lattice_desktop.sandbox.tools import MissingTool, check_after_failure, check_before_build
from tests.core.wat_cases import ECHO_CASES, write_case
from tests.hostile.conftest import private_tmp  # noqa: F401  (a fixture)
from tests.hostile.test_builds import MAKE_MODULE, build_folder

pytestmark = pytest.mark.usefixtures("private_tmp")  # scratch folders of the test's own
CLI = [sys.executable, "-m", "lattice_desktop.cli.main"]
ABSENT_MODULE = "ziglang_not_installed_here"
# Where the jail is not available, the same refusals hold for an allowed unisolated build.
UNISOLATED = [] if isolation().available else ["--allow-unisolated-build"]


def _cli(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *args, "--db", str(db)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )


def _stored_runs(db: Path) -> list[tuple[str, str]]:
    """(submission folder, verdict) of every stored run, read from the database itself."""
    if not db.exists():
        return []
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(
            "SELECT s.path, r.verdict FROM run r JOIN submission s ON s.id = r.submission_id"
        ).fetchall()


@pytest.mark.parametrize(
    ("command", "named"),
    [
        (f"python -m {ABSENT_MODULE} cc -o module.wasm engine.c", f"the Python module `{ABSENT_MODULE}`"),
        ("zigzag-cc --target=wasm32 -o module.wasm engine.c", "`zigzag-cc`"),
        ("sh build.sh", "`zigzag-cc`"),  # called from the submission's own script
    ],
)
def test_a_build_the_grader_lacks_a_tool_for_is_the_graders_problem_and_stores_nothing(
    tmp_path, command, named
):
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = build_folder(tmp_path / "sub", command)
    (folder / "build.sh").write_text("echo compiling\nzigzag-cc -o module.wasm engine.c\n")
    db = tmp_path / "runs.db"
    done = _cli("grade", str(folder), "--case", str(case), "--build", *UNISOLATED, db=db)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert f"the build needs {named}" in done.stderr and "the grader's environment" in done.stderr
    assert str(folder / "submission.toml") in done.stderr  # located
    assert "incorrect" not in done.stdout
    assert _stored_runs(db) == []  # nothing stored, so nothing counts in the leaderboard's runs


def test_a_build_whose_own_script_is_missing_is_still_the_submissions_failure(tmp_path):
    """A missing file of the submission is not a missing tool: the run is the submission's."""
    folder = build_folder(tmp_path / "sub", "sh ./no-such-build.sh")
    options = {"allow_unisolated": not isolation().available}
    result = build_submission(
        load_submission(folder), allowed=True, timeout=60, max_module_bytes=2**20, **options
    )
    assert not result.ok and "exited with status" in result.detail


def test_a_missing_tool_is_refused_before_any_command_runs(tmp_path, monkeypatch):
    """Up front: the first command, which would have run, never does."""
    monkeypatch.setenv(SWITCH, "off")
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = build_folder(tmp_path / "sub", f"touch {outside}/ran", "zigzag-cc -o module.wasm x.c")
    with pytest.raises(MissingTool, match="`zigzag-cc`"):
        build_submission(
            load_submission(folder), allowed=True, timeout=60, max_module_bytes=2**20, allow_unisolated=True
        )
    assert list(outside.iterdir()) == []


def test_a_batch_goes_on_past_a_submission_the_grader_lacks_a_tool_for(tmp_path):
    case = write_case(tmp_path / "case", ECHO_CASES)
    field = tmp_path / "field"
    build_folder(field / "a-needs-zigzag", "zigzag-cc -o module.wasm x.c")
    build_folder(field / "b-good", MAKE_MODULE)
    db = tmp_path / "runs.db"
    done = _cli(
        "grade-batch", str(field), "--case", str(case), "--build", *UNISOLATED, "--workers", "1", db=db
    )
    assert "Traceback" not in done.stderr
    assert (
        "zigzag-cc" in done.stdout + done.stderr and "the grader's environment" in done.stdout + done.stderr
    )
    assert len(_stored_runs(db)) == 1, done.stdout + done.stderr  # only b-good's run


@pytest.mark.parametrize(
    "command",
    [
        "[[ -f x ]] && echo yes > out.txt 2>&1",
        "if [ -f x ]; then cc -o a a.c; fi",
        "for f in *.c; do cc -c $f; done",
        "env -i HOME=/x sh -c 'true'",
        "nice -n 5 sh -c true",
        "FOO=1 time sh -c true",
        "(cd sub && sh build.sh) | tee log",
        "export CC=cc; $CC -o x x.c",
        "build() { zigzag-cc x.c; }; build",
        "PATH=$PWD/bin:$PATH zigzag-cc",
        "i=$((i + 1)); echo `zigzag-cc`",
    ],
)
def test_shell_lines_that_name_no_missing_program_plainly_are_not_refused_up_front(tmp_path, command):
    """The check before the build reads only plain command words; anything cleverer is left
    to the check after a failure, so no legitimate build is refused by a misreading."""
    folder = build_folder(tmp_path / "sub", command)
    check_before_build(load_submission(folder), "/usr/local/bin:/usr/bin:/bin")


@pytest.mark.parametrize(
    "command",
    [
        "cd sub && zigzag-cc x.c",
        "FOO=1 zigzag-cc",
        "echo hi > log && zigzag-cc",
        "(zigzag-cc)",
        "true | zigzag-cc",
    ],
)
def test_a_plainly_named_missing_program_is_refused_up_front(tmp_path, command):
    folder = build_folder(tmp_path / "sub", command)
    with pytest.raises(MissingTool, match="`zigzag-cc`"):
        check_before_build(load_submission(folder), "/usr/local/bin:/usr/bin:/bin")


def test_the_shells_not_found_messages_are_read(tmp_path):
    submission = load_submission(build_folder(tmp_path / "sub", "sh build.sh"))
    for said in ("/bin/sh: 1: zigzag-cc: not found", "bash: line 3: zigzag-cc: command not found"):
        with pytest.raises(MissingTool, match="`zigzag-cc`"):
            check_after_failure(submission, 127, f"compiling\n{said}\n", "/usr/bin:/bin")
    check_after_failure(submission, 1, "zigzag-cc: not found\n", "/usr/bin:/bin")  # not exit 127
    check_after_failure(submission, 127, "/bin/sh: 1: sh: not found\n", "/usr/bin:/bin")  # sh is there
