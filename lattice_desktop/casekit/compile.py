"""Compile a case's own submissions (its reference, samples and slips) from their sources.

These are the case author's files, built on the author's machine as `build_engines.py`
builds the Lattice engines: each [build] command runs in the submission's folder with this
Python first on the PATH (so `python -m ziglang cc …` finds the bundled toolchain). With
relative paths and `-g0`, or `-g -fdebug-compilation-dir=.` (DWARF lines that record `.`
for the folder), a module is byte-identical wherever it is built, which is what lets
`case build --check` compare a fresh build with the committed one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_submission

TIMEOUT_S = 300
LOG_TAIL = 2000


def compile_submission(folder: Path, *, timeout_s: int = TIMEOUT_S) -> Path:
    """Run the folder's [build] commands there; the module they made, or a UserError that
    names the command and ends with what it printed."""
    submission = load_submission(folder)
    env = dict(
        os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    for command in submission.commands:
        try:
            done = subprocess.run(
                command,
                check=False,
                shell=True,
                cwd=submission.folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout_s,
            )
        except subprocess.TimeoutExpired:
            raise UserError(f"{submission.manifest_path}: `{command}` ran past {timeout_s} s") from None
        if done.returncode != 0:
            log = (done.stdout + done.stderr).strip()[-LOG_TAIL:]
            raise UserError(
                f"{submission.manifest_path}: `{command}` failed (exit {done.returncode}):\n{log}"
            )
    if not submission.module_path.is_file():
        raise UserError(f"{submission.manifest_path}: the build made no {submission.module}")
    return submission.module_path
