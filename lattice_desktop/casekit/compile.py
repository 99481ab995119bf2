"""Compile a case's own submissions (its reference, samples and slips) from their sources.

A case folder may come from someone else, so its build commands run as a submission's do:
in the build jail, in a cgroup, on a copy of the submission's folder, with a scrubbed
environment in which this Python is on the PATH (so `python -m ziglang cc …` finds the
bundled toolchain); what they made is copied back (`sandbox/folder_run.py`). With relative
paths and `-g0`, or `-g -fdebug-compilation-dir=.` (DWARF lines that record `.` for the
folder), a module is byte-identical wherever it is built, which is what lets `case build
--check` compare a fresh build with the committed one.
"""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_submission
from lattice_desktop.sandbox.folder_run import run_jailed
from lattice_desktop.work import Work

TIMEOUT_S = 300


def compile_submission(
    folder: Path, *, allow_unisolated: bool = False, work: Work | None = None, timeout_s: int = TIMEOUT_S
) -> Path:
    """Run the folder's [build] commands, jailed; the module they made, or a UserError that
    names the command and ends with what it printed."""
    submission = load_submission(folder)
    if submission.commands:
        run_jailed(
            submission.folder,
            submission.commands,
            where=str(submission.manifest_path),
            timeout=timeout_s,
            allow_unisolated=allow_unisolated,
            work=work,
        )
    if not submission.module_path.is_file():
        raise UserError(f"{submission.manifest_path}: the build made no {submission.module}")
    return submission.module_path
