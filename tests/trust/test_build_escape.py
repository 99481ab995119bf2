"""Issue 19 items 1 and 2: a build can neither choose what the grader reads as its module
nor read the expected answers, whatever the install layout.

Before: `cd .. && mv src s0 && ln -s VICTIM src` made the grader (outside the jail, with
its own rights) read another submission's module, even a 0600 file the build could not
read, and grade it correct under the attacker's name; a case kept under a toolchain folder
(the bundle keeps its own folder, which holds the bundled case) was readable by the build."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import wasmtime

from lattice_desktop import resources
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.sandbox import isolation as isolation_module
from lattice_desktop.sandbox.isolation import isolation
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case
from tests.hostile.conftest import private_tmp  # noqa: F401  (a fixture)
from tests.hostile.test_builds import MAKE_MODULE, build_folder

pytestmark = pytest.mark.usefixtures("private_tmp")  # scratch folders of the test's own
jailed = pytest.mark.skipif(
    not isolation().available, reason=f"no build isolation here: {isolation().reason}"
)


def _victim(folder: Path) -> Path:
    """Another submission's folder: a correct module only its owner (root) may read."""
    folder.mkdir(parents=True)
    module = folder / "module.wasm"
    module.write_bytes(wasmtime.wat2wasm(ECHO))
    module.chmod(0o600)
    return folder


@jailed
@pytest.mark.parametrize(
    "swap",
    [
        "cd .. && mv src s0 && ln -s {victim} src",  # the folder above the module
        "mkdir out && ln -s {victim}/module.wasm out/x && mv out/x module.wasm",  # the module
        "mkdir -p deep && cd .. && mv src s0 && mkdir src && ln -s {victim} src/deep",
    ],
)
def test_a_build_that_swaps_a_folder_for_a_link_cannot_make_the_grader_read_another_module(tmp_path, swap):
    victim = _victim(tmp_path / "victim")
    module = "deep/module.wasm" if "src/deep" in swap else "module.wasm"
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    attacker = build_folder(tmp_path / "attacker", swap.format(victim=victim), module=module)
    report = grade(case, load_submission(attacker), allow_build=True)
    assert report.verdict is Verdict.BUILD_FAILED, report.build.log
    assert report.results[0].outcome is Outcome.BUILD_FAILURE
    assert not any(r.outcome.correct for r in report.results)
    detail = report.results[0].detail
    assert "symbolic link" in detail and "links are not followed" in detail, detail
    assert module.split("/")[0] in detail  # located: the component at fault is named


@jailed
def test_a_module_the_build_user_could_not_read_is_refused(tmp_path):
    """A 0600 file left by anyone but the build's user is not read with the grader's rights."""
    if os.geteuid() != 0:
        pytest.skip("the build keeps the grader's identity when the grader is not root")
    from lattice_desktop.sandbox.beneath import NotBeneath, open_beneath

    root = tmp_path / "scratch"
    (root / "src").mkdir(parents=True)
    (root / "src" / "module.wasm").write_bytes(b"\0asm")
    (root / "src" / "module.wasm").chmod(0o600)
    fd = os.open(root, os.O_PATH | os.O_DIRECTORY)
    try:
        with pytest.raises(NotBeneath, match=r"cannot read src/module\.wasm"):
            open_beneath(fd, "src/module.wasm", as_uid=65534)
        os.close(open_beneath(fd, "src/module.wasm"))  # the grader itself could
    finally:
        os.close(fd)


@jailed
def test_an_honest_build_into_a_subfolder_still_grades_correct(tmp_path):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    make = MAKE_MODULE.replace("open('module.wasm'", "open('out/engine.wasm'")
    honest = build_folder(tmp_path / "honest", "mkdir -p out", make, module="out/engine.wasm")
    report = grade(case, load_submission(honest), allow_build=True)
    assert report.verdict is Verdict.CORRECT, report.build.log


def _cheat(token_file: Path) -> str:
    """A build command that reads the expected answers and prints them if it can."""
    return f"cat {token_file} || echo 'no answers here'"


@jailed
def test_a_case_under_a_toolchain_folder_is_hidden_from_the_build(tmp_path, monkeypatch):
    """The install layout of the bundle: the case lives inside a folder the build must keep."""
    toolchain = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        toolchain.chmod(0o755)
        token = secrets.token_hex(8)
        case_path = write_case(toolchain / "cases" / "echo", ECHO_CASES)
        answers = case_path.parent / "answers.txt"
        answers.write_text(f"expected {token}\n")
        answers.chmod(0o644)
        (toolchain / "bin").mkdir()
        (toolchain / "bin" / "tool").write_text("#!/bin/sh\necho the tool ran\n")
        (toolchain / "bin" / "tool").chmod(0o755)
        monkeypatch.setenv(isolation_module.TOOLCHAIN, str(toolchain))
        folder = build_folder(tmp_path / "sub", f"{toolchain}/bin/tool", _cheat(answers), MAKE_MODULE)
        report = grade(load_case(case_path), load_submission(folder), allow_build=True)
        assert report.verdict is Verdict.CORRECT, report.build.log
        assert "the tool ran" in report.build.log  # the toolchain is still there
        assert f"expected {token}" not in report.build.log
        assert "no answers here" in report.build.log
    finally:
        shutil.rmtree(toolchain, ignore_errors=True)


@jailed
def test_the_bundled_cases_are_hidden_even_when_their_folder_is_kept(tmp_path, monkeypatch):
    """A checkout named as a toolchain folder (or installed under /opt) keeps resources/."""
    expected = resources.CASES / "lattice" / "expected" / "turn.u64"
    monkeypatch.setenv(isolation_module.TOOLCHAIN, str(resources.RESOURCES))
    digest = subprocess.run(
        ["sha256sum", str(expected)], check=True, capture_output=True, text=True
    ).stdout.split()[0]
    folder = build_folder(tmp_path / "sub", f"sha256sum {expected} || echo 'no answers here'", MAKE_MODULE)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    report = grade(case, load_submission(folder), allow_build=True)
    assert report.verdict is Verdict.CORRECT, report.build.log
    assert digest not in report.build.log
    assert "no answers here" in report.build.log


@jailed
def test_a_toolchain_inside_a_hidden_case_folder_stays_usable(tmp_path, monkeypatch):
    """Two kept folders, one inside the other and inside the case's folder: hiding the case
    binds the inner toolchain again."""
    outer = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        outer.chmod(0o755)
        case_path = write_case(outer / "case", ECHO_CASES)
        (case_path.parent / "answers.txt").write_text("the answers\n")
        tools = case_path.parent / "tools"
        tools.mkdir()
        (tools / "tool").write_text("#!/bin/sh\necho the inner tool ran\n")
        (tools / "tool").chmod(0o755)
        monkeypatch.setenv(isolation_module.TOOLCHAIN, os.pathsep.join([str(outer), str(tools)]))
        folder = build_folder(tmp_path / "sub", "tool", _cheat(case_path.parent / "answers.txt"), MAKE_MODULE)
        report = grade(load_case(case_path), load_submission(folder), allow_build=True)
        assert report.verdict is Verdict.CORRECT, report.build.log
        assert "the inner tool ran" in report.build.log
        assert "the answers" not in report.build.log and "no answers here" in report.build.log
    finally:
        shutil.rmtree(outer, ignore_errors=True)
