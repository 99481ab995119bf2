"""`case new NAME`: a new case folder from the template, ready for `case build`."""

from __future__ import annotations

import re
from pathlib import Path

from lattice_desktop.casekit.template import files
from lattice_desktop.errors import UserError

NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")


def scaffold(name: str, parent: Path) -> Path:
    """Write the template into `parent/name` and return that folder; refuse a name that is
    not a plain lower-case word, or a folder that already holds anything."""
    if not NAME.fullmatch(name):
        raise UserError(
            f"'{name}' is not a case name: use lower-case letters, digits, '-' and '_', "
            "starting with a letter (it names the folder and the case's leaderboard)"
        )
    folder = parent / name
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UserError(f"{folder} already exists and is not empty; pick another name or --dir")
    for rel, text in files(name).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder
