"""Paths named on the command line or dropped on the window, sent where each belongs:
scenario files (*.lat) together to the Factory tab, a case (case.toml or its folder) to
be graded against, a submission (submission.toml or its folder) to be graded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData


def local_paths(mime: QMimeData) -> list[Path]:
    """The local files and folders in a drag."""
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]


def route_paths(
    paths: list[Path],
    *,
    scenarios: Callable[[list[Path]], None],
    case: Callable[[Path], None],
    submission: Callable[[Path], None],
    say: Callable[[str], None],
) -> None:
    """Scenario files all together first, then each case or submission in turn; `say`
    why a path is none of these."""
    lat = [p for p in paths if p.suffix == ".lat"]
    if lat:
        scenarios(lat)
    for path in paths:
        if path.suffix == ".lat":
            continue
        if path.name == "case.toml" or (path / "case.toml").is_file():
            case(path)
        elif path.name == "submission.toml" or (path / "submission.toml").is_file():
            submission(path if path.is_dir() else path.parent)
        else:
            say(f"{path} is not a scenario file (*.lat) and holds neither case.toml nor submission.toml.")
