"""`lattice-desktop screenshots OUTDIR`: whatever the user's database holds, it grades the
bundled demo into a temporary database of its own, imports the harness examples, saves
twelve real pictures, finishes, and leaves stderr clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from lattice_desktop.ui.app import main

from .conftest import grade_into

TABS = [
    "results",
    "fuel",
    "leaderboard",
    "results_incorrect",
    "factory",
    "factory_why",
    "factory_largest",
    "factory_scale",
    "factory_scale_heatmap",
    "harness_results",
    "harness_leaderboard",
    "scenario_file",
]


@pytest.mark.slow
def test_screenshots_of_every_tab_whatever_the_database_holds(qapp, tmp_path, toy_case, monkeypatch, capsys):
    used = tmp_path / "used.db"  # the user's: runs of another case, none of the demo
    grade_into(used, toy_case.case_path, toy_case.submission("echo"), toy_case.submission("wrong"))
    monkeypatch.setenv("LATTICE_DESKTOP_DB", str(used))
    assert main(["screenshots", str(tmp_path / "shots")]) == 0
    out, err = capsys.readouterr()
    saved = [Path(line) for line in out.splitlines()]
    assert [p.stem for p in saved] == TABS
    assert "temporary database" in err and "propagateSizeHints" not in err
    for path in saved:
        image = QImage(str(path))
        assert (image.width(), image.height()) == (1500, 920), path.name
        # A real picture, not a blank window: many distinct colours.
        colours = {image.pixel(x, y) for x in range(0, 1500, 25) for y in range(0, 920, 25)}
        assert len(colours) > 20, path.name
