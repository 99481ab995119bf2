"""Where the bundled resources (cases, sample submissions, harness examples) live."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lattice_desktop.errors import UserError


def _bundled() -> Path:
    """Beside the package in a checkout; inside the bundle's folder when frozen (PyInstaller)."""
    frozen = getattr(sys, "_MEIPASS", None)
    return Path(frozen) / "resources" if frozen else Path(__file__).resolve().parents[1] / "resources"


RESOURCES = Path(os.environ.get("LATTICE_DESKTOP_RESOURCES") or _bundled())
CASES = RESOURCES / "cases"
ICONS = RESOURCES / "icons"


def resolve_case_path(name_or_path: str, *, base: Path | None = None) -> Path:
    """A manifest path, a folder holding case.toml, or the name of a bundled case.

    A relative path is taken from `base` when given (a submission's `case = "..."` is
    relative to its own manifest's folder), else from the current directory.
    """
    path = Path(name_or_path)
    if base is not None and not path.is_absolute():
        path = base / path
    if path.is_file():
        return path
    if path.is_dir() and (path / "case.toml").is_file():
        return path / "case.toml"
    bundled = CASES / name_or_path / "case.toml"
    if bundled.is_file():
        return bundled
    raise UserError(f"no case manifest at '{name_or_path}' and no bundled case of that name")


def demo_case() -> Path:
    return CASES / "lattice" / "case.toml"
