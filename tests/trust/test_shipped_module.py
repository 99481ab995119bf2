"""Issue 9 item 4: a shipped `module` must be a regular file inside the submission folder.

Today a link to another submission's module is graded correct under the linker's name,
and a link into /proc is a traceback."""

from __future__ import annotations

import os

import pytest

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission


@pytest.fixture
def case(tmp_path):
    return load_case(write_case(tmp_path / "case", ECHO_CASES))


def _linked(tmp_path, target) -> object:
    folder = write_submission(tmp_path / "copycat", ECHO, model="copycat")
    (folder / "module.wasm").unlink()
    os.symlink(target, folder / "module.wasm")
    return load_submission(folder)


def test_a_link_to_another_submissions_module_is_refused(tmp_path, case):
    honest = write_submission(tmp_path / "honest", ECHO, model="honest")
    report = grade(case, _linked(tmp_path, honest / "module.wasm"), workers=1)
    assert report.verdict is not Verdict.CORRECT
    assert report.results[0].outcome is Outcome.BUILD_FAILURE
    assert "outside the submission folder" in report.results[0].detail


@pytest.mark.parametrize("target", ["/proc/self/status", "/proc/self/mem", "/dev/zero", "/dev/urandom"])
def test_a_link_to_a_special_or_outside_file_is_a_clear_build_failure(tmp_path, case, target):
    report = grade(case, _linked(tmp_path, target), workers=1)
    assert report.results[0].outcome is Outcome.BUILD_FAILURE
    assert "outside the submission folder" in report.results[0].detail


def test_a_fifo_as_module_is_refused_without_blocking(tmp_path, case):
    folder = write_submission(tmp_path / "fifo", ECHO)
    (folder / "module.wasm").unlink()
    os.mkfifo(folder / "module.wasm")
    report = grade(case, load_submission(folder), workers=1)
    assert report.results[0].outcome is Outcome.BUILD_FAILURE
    assert "not a regular file" in report.results[0].detail


def test_a_link_inside_the_folder_is_fine(tmp_path, case):
    folder = write_submission(tmp_path / "inside", ECHO)
    (folder / "out").mkdir()
    (folder / "module.wasm").rename(folder / "out" / "real.wasm")
    os.symlink("out/real.wasm", folder / "module.wasm")
    assert grade(case, load_submission(folder), workers=1).verdict is Verdict.CORRECT
