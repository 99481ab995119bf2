"""`lattice-desktop screenshots OUTDIR` on a clean database: grades the bundled demo,
imports the harness examples, and saves one real picture of each tab."""

from __future__ import annotations

from PySide6.QtGui import QImage

from lattice_desktop.ui.screenshots import save_screenshots

TABS = [
    "results",
    "fuel",
    "leaderboard",
    "results_incorrect",
    "factory",
    "factory_largest",
    "factory_scale",
    "factory_scale_heatmap",
    "harness_results",
    "harness_leaderboard",
    "scenario_file",
]


def test_screenshots_of_every_tab_from_a_clean_start(qapp, tmp_path):
    saved = save_screenshots(tmp_path / "shots", str(tmp_path / "db.sqlite"))
    assert [p.stem for p in saved] == TABS
    for path in saved:
        image = QImage(str(path))
        assert (image.width(), image.height()) == (1500, 920), path.name
        # A real picture, not a blank window: many distinct colours.
        colours = {image.pixel(x, y) for x in range(0, 1500, 25) for y in range(0, 920, 25)}
        assert len(colours) > 20, path.name
