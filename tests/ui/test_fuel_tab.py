"""The Fuel tab filled from a real SQLite database: bars, the field's best, slopes, compare."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QThreadPool

from lattice_desktop.store.database import open_database
from lattice_desktop.store.fuel_queries import comparable_runs, field_best_per_case
from lattice_desktop.store.queries import load_run
from lattice_desktop.ui.fuel.tab import FuelTab, plotted
from tests.ui.conftest import grade_into, write_submission


@pytest.fixture
def fuel_db(db_path, toy_case, graded):
    """echo (correct), bytewise (over the ceiling), wrong (incorrect), plus a second echo."""
    second = write_submission(toy_case.root / "other" / "echo2", "bytewise", model="model-z")
    ids = dict(graded)
    ids["echo2"] = grade_into(db_path, toy_case.case_path, second)[0]
    open_database(db_path)
    return ids


def test_field_best_is_the_lowest_correct_fuel(fuel_db):
    best = field_best_per_case(fuel_db["bytewise"])
    echo, bytewise = load_run(fuel_db["echo"]), load_run(fuel_db["bytewise"])
    for name in ("hello", "big"):
        fuels = [r.fuel for run in (echo, bytewise) for r in run.results if r.name == name]
        assert best[name].fuel == min(fuels)
    assert best["big"].model == "model-a"
    others = comparable_runs(fuel_db["bytewise"])
    assert fuel_db["bytewise"] not in [o.run_id for o in others]
    assert fuel_db["echo"] in [o.run_id for o in others]


def test_fuel_tab_from_the_database(qtbot, fuel_db, toy_case):
    from lattice_desktop.manifest import load_case

    tab = FuelTab()
    qtbot.addWidget(tab)
    tab.resize(1000, 700)
    tab.show()
    run = load_run(fuel_db["bytewise"])
    tab.show_run(run, load_case(toy_case.case_path))
    qtbot.waitUntil(lambda: tab.compare_box.count() > 1, timeout=10000)
    assert tab.stack.currentIndex() == 1
    shown = plotted(run.results)
    assert [r.name for r in shown] == ["big"]
    bars = tab.bars.bars.opts
    assert list(bars["height"]) == pytest.approx([math.log10(shown[0].fuel) - bars["y0"]])
    assert tab.bars.ceiling.value() == pytest.approx(math.log10(shown[0].ceiling))
    best = tab.best["big"].fuel
    _, ys = tab.bars.best.getData()
    assert list(ys) == pytest.approx([math.log10(best)])
    # hovering the bar gives its exact fuel
    text = tab.bars.tips.text_at(
        tab.bars.getViewBox().mapViewToScene(
            tab.bars.getViewBox().mapSceneToView(tab.bars.getViewBox().sceneBoundingRect().center())
        )
    )
    assert text == "" or f"{shown[0].fuel:,}" in text
    index = tab.compare_box.findData(fuel_db["echo"])
    tab.compare_box.setCurrentIndex(index)
    tab._compare_chosen(index)
    qtbot.waitUntil(lambda: tab.other is not None, timeout=10000)
    echo = next(r for r in load_run(fuel_db["echo"]).results if r.name == "big")
    assert f"×{shown[0].fuel / echo.fuel:.2f}" in [label.toPlainText() for label in tab.bars.labels]
    assert "geometric mean" in tab.summary.text()
    QThreadPool.globalInstance().waitForDone(5000)


def test_empty_state(qtbot):
    tab = FuelTab()
    qtbot.addWidget(tab)
    tab.show_run(None, None)
    assert tab.stack.currentIndex() == 0
