"""A case made by `case new` and built once per session; each test gets its own copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lattice_desktop.casekit.build import CaseCode, build_case
from lattice_desktop.casekit.scaffold import scaffold


@pytest.fixture(scope="session")
def built_template(tmp_path_factory) -> Path:
    folder = scaffold("sums", tmp_path_factory.mktemp("template"))
    build_case(folder, code=CaseCode(allowed=True), say=lambda _: None)
    return folder


@pytest.fixture
def template(built_template, tmp_path) -> Path:
    """A built copy of the template case, for a test to change as it likes."""
    return Path(shutil.copytree(built_template, tmp_path / "sums"))


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a folder by its relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
