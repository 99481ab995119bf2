"""The session-end check of tests/leak_check.py: a pytest run with it fails when a test left a
file in the temp root or the home folder's caches, names what was left, and passes when the
tests kept to their temp folder (where TMPDIR now points). Each inner run has a temp root and
a home folder of its own, so what other programs write meanwhile cannot reach it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INNER_TESTS = """
import os, subprocess, tempfile
from pathlib import Path

ROOT, HOME = Path(os.environ["REAL_ROOT"]), Path.home()

def test_tempfile_and_subprocesses_use_the_sessions_folder(tmp_path_factory):
    inside = tmp_path_factory.getbasetemp()
    assert Path(tempfile.gettempdir()).is_relative_to(inside)
    made = subprocess.run(["mktemp"], capture_output=True, text=True, check=True).stdout.strip()
    assert Path(made).is_relative_to(inside)

def test_what_a_test_leaves(tmp_path):
    for place in os.environ.get("LEAVE", "").split():
        path = (ROOT if place == "root" else HOME) / os.environ["LEAVE_" + place]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("left behind")
    (tmp_path / "kept.png").write_text("inside the temp folder")
"""


def inner_run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "test_inner.py").write_text(INNER_TESTS)
    root, home = tmp_path / "root", tmp_path / "home"
    root.mkdir()
    (home / ".cache").mkdir(parents=True)
    (root / "there-before.png").write_text("an earlier run's")  # not this run's
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.leak_check", "-p", "no:cacheprovider", "-q"],
        cwd=project,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "TMPDIR": str(root),
            "REAL_ROOT": str(root),
            "HOME": str(home),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # a bare pytest: quicker to start
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_run_that_keeps_to_its_temp_folder_passes(tmp_path):
    done = inner_run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "written outside" not in done.stdout
    left = {p.name for p in (tmp_path / "root").iterdir() if not p.name.startswith("pytest-of-")}
    assert left == {"there-before.png"}


def test_files_left_in_the_temp_root_or_a_cache_fail_the_run_and_are_named(tmp_path):
    left = {"root": "flame_zoomed.png", "home": ".cache/lattice-desktop/module.bin"}
    done = inner_run(tmp_path, LEAVE="root home", **{f"LEAVE_{k}": v for k, v in left.items()})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 passed" in done.stdout  # the tests passed; the check failed the run
    _, _, summary = done.stdout.partition("written outside pytest's temp folder")
    named = [line for line in summary.splitlines() if line.startswith(str(tmp_path))]
    assert named == [
        str(tmp_path / "root" / "flame_zoomed.png"),
        str(tmp_path / "home" / ".cache" / "lattice-desktop") + "/",
    ]
    assert "there-before.png" not in done.stdout


def test_this_session_keeps_its_temporary_files_in_its_temp_folder(tmp_path_factory):
    # In an xdist worker as in a lone process: tempfile and every subprocess (TMPDIR) write
    # into this process's own temp folder.
    inside = tmp_path_factory.getbasetemp()
    assert Path(tempfile.gettempdir()).is_relative_to(inside)
    assert Path(os.environ["TMPDIR"]).is_relative_to(inside)
