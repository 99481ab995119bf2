"""The CI report options `grade`, `grade-batch` and `compare` share: `--junit FILE` (one
test per case entry, for a CI's test view) and `--markdown FILE` (a table for a job
summary). Each file is written whole or not at all, after the report is made."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from lattice_desktop.cli.common import err
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import Location, UserError
from lattice_desktop.services.exports import Export, write_export


def add_junit_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--junit",
        metavar="FILE",
        type=Path,
        help="also write a JUnit XML report: a test per case entry (for a CI's test results view)",
    )


def add_markdown_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--markdown",
        metavar="FILE",
        type=Path,
        help="also write a Markdown summary (for a CI job summary, e.g. $GITHUB_STEP_SUMMARY)",
    )


def write_report(path: Path, text: str, *, kind: str, what: str) -> None:
    """Write one report; a path that cannot be written is a located user error."""
    written = write_export(Export(kind, text, what), path)
    err(f"wrote {shown(str(written))}")


def check_writable(*paths: Path | None) -> None:
    """Refuse, before any grading, a report path that could not be written: a folder, or a
    file in a folder that does not exist or takes no new file (read-only, /proc): a scratch
    file is made there and removed, as the report's own write will make one."""
    for path in paths:
        if path is None:
            continue
        if path.is_dir():
            raise UserError("is a folder; name the file to write", Location(str(path)))
        if not path.parent.is_dir():
            raise UserError("its folder does not exist", Location(str(path)))
        try:
            handle, scratch = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise UserError(f"cannot write a file in its folder: {reason}", Location(str(path))) from None
        os.close(handle)
        os.unlink(scratch)
