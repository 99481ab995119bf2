"""One face per state, and a window that fits the screen.

Every view (Results, Fuel, Factory, the runs list, the leaderboard, the CLI) shows an outcome
or a verdict with the symbol, colour and words of its one look in lattice_desktop/outcomes.py; and
opening the largest bundled scenario never grows the window past a 1366x768 screen."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from lattice_desktop.cli.report_text import result_rows, verdict_line
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.resources import CASES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import BoardEntry, Leaderboard
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common.delegates import CHIP_ROLE
from lattice_desktop.ui.fuel.plots import outcome_style
from lattice_desktop.ui.leaderboard.model import FuelBoardModel
from lattice_desktop.ui.results.model import ResultsModel
from lattice_desktop.ui.runs.model import verdict_chip
from lattice_desktop.ui.window.main_window import MainWindow
from lattice_desktop.ui.window.tabs import FACTORY, FUEL

LATTICE = CASES / "lattice"
SCREEN = (1366, 768)


def one_result(outcome: Outcome) -> CaseResult:
    return CaseResult(
        name="stress-1",
        kind="stress",
        behaviour="",
        size=10,
        outcome=outcome,
        ceiling=100,
        budget=400,
        fuel=150 if outcome.correct else None,
    )


@pytest.mark.parametrize("outcome", list(Outcome))
def test_every_view_shows_an_outcome_with_its_one_look(outcome):
    look = outcome.look
    results = ResultsModel(smoke=False)
    results.set_results([one_result(outcome)])
    cell = results.index(0, results.column("Outcome"))
    chip = cell.data(CHIP_ROLE)
    assert cell.data() == look.text == f"{look.symbol} {look.words}"
    assert (chip.symbol, chip.label, chip.colour) == (look.symbol, look.words, QColor(look.colour))
    assert outcome_style(outcome) == (look.colour, look.text)  # the Fuel tab's bars and legend
    assert look.text in result_rows([one_result(outcome)])[0]  # the CLI's tables


@pytest.mark.parametrize("verdict", list(Verdict))
def test_every_view_shows_a_verdict_with_its_one_look(verdict):
    look = verdict.look
    chip = verdict_chip(verdict)  # the runs list
    assert (chip.symbol, chip.label, chip.colour) == (look.symbol, look.words, QColor(look.colour))
    assert verdict_line(verdict, None, None) == look.text  # the CLI


def test_skipped_and_internal_error_look_the_same_in_results_and_fuel():
    """The two that differed: skipped was "–" in Results and "◌ skipped" in Fuel; internal
    error a purple "!" in Results and a red "✗" in Fuel."""
    for outcome in (Outcome.SKIPPED, Outcome.INTERNAL_ERROR):
        results = ResultsModel(smoke=False)
        results.set_results([one_result(outcome)])
        chip = results.index(0, results.column("Outcome")).data(CHIP_ROLE)
        colour, words = outcome_style(outcome)
        assert (f"{chip.symbol} {chip.label}", chip.colour.name().upper()) == (words, colour.upper())
    assert Outcome.INTERNAL_ERROR.look.colour == Verdict.INTERNAL_ERROR.look.colour


def test_the_leaderboard_marks_over_ceiling_rows_with_the_verdicts_symbol(qtbot):
    entry = BoardEntry(1, "model-a", 1, 10, 1.0, 1, None, None)
    over = dataclasses.replace(entry, rank=0, model="model-b", run_id=2, percent_over=12.0)
    model = FuelBoardModel()
    model.set_board(Leaderboard("echo", 1, "standard", "w", [entry], [over]))
    assert model.index(0, 0).data() == "#1"
    assert model.index(2, 0).data() == Verdict.OVER_CEILING.look.symbol
    assert model.index(2, 5).data() == "unknown"  # a date the store could not read


needs_engines = pytest.mark.skipif(
    not (LATTICE / "submissions" / "lines" / "engine.wasm").is_file(),
    reason="the bundled sample engines are not built",
)


@pytest.fixture
def lattice_runs(tmp_path):
    """The bundled case graded with the correct `lines` sample and the wrong `buggy` one."""
    path = tmp_path / "runs.db"
    writer = Writer(open_database(path))
    case = load_case(LATTICE / "case.toml")
    ids = {
        name: grade_and_store(case, load_submission(LATTICE / "submissions" / name), writer=writer).run_id
        for name in ("lines", "buggy")
    }
    writer.close()
    return path, ids


@pytest.fixture
def small_screen_window(qtbot, lattice_runs, settings):
    path, ids = lattice_runs
    window = MainWindow(str(path), auto_demo=False, settings=settings)
    qtbot.addWidget(window)
    window.resize(*SCREEN)
    window.show()
    qtbot.waitUntil(lambda: window.runs_loaded, timeout=10_000)
    yield window, ids
    window.factory_tab.shutdown()
    QThreadPool.globalInstance().waitForDone(10_000)


def open_run(qtbot, window: MainWindow, run_id: int) -> None:
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.runs_panel.select_run(run_id)


def settle(qtbot) -> None:
    for _ in range(5):
        QApplication.processEvents()
        qtbot.wait(20)


@needs_engines
def test_choosing_every_scenario_keeps_the_window_within_a_1366_screen(qtbot, small_screen_window):
    window, ids = small_screen_window
    open_run(qtbot, window, ids["lines"])
    window.tabs.setCurrentIndex(FACTORY)
    tab = window.factory_tab
    names = [tab.case_box.itemData(i) for i in range(tab.case_box.count())]
    assert names[-1] == "stress-512"
    widths = {}
    for i, name in enumerate(names):
        tab.case_box.setCurrentIndex(i)
        tab.case_box.activated.emit(i)
        qtbot.waitUntil(lambda: not tab.engine_label.text().startswith("opening"), timeout=60_000)
        settle(qtbot)
        widths[name] = window.width()
    assert tab.engine_label.text().startswith("512×512")
    assert max(widths.values()) <= SCREEN[0], widths
    assert window.minimumSizeHint().width() <= SCREEN[0]
    assert tab.legend.height() > tab.legend.fontMetrics().height() * 1.5  # it wrapped instead
    assert "item type" in tab.legend.toolTip()


@needs_engines
def test_the_factory_scenario_list_marks_each_case_with_its_outcome(qtbot, small_screen_window):
    window, ids = small_screen_window
    open_run(qtbot, window, ids["buggy"])
    window.tabs.setCurrentIndex(FACTORY)
    box = window.factory_tab.case_box
    page_results = {r.name: r for r in window.page.run.results}
    texts = [box.itemText(i) for i in range(box.count())]
    assert texts == [
        f"{page_results[box.itemData(i)].outcome.symbol} {box.itemData(i)}" for i in range(box.count())
    ]
    assert any(t.startswith(Outcome.SKIPPED.look.symbol) for t in texts)


@needs_engines
def test_the_fuel_ceiling_label_is_inside_the_plot(qtbot, small_screen_window):
    window, ids = small_screen_window
    open_run(qtbot, window, ids["lines"])
    window.tabs.setCurrentIndex(FUEL)
    bars = window.fuel_tab.bars
    qtbot.waitUntil(lambda: len(bars.bars.opts["height"]) > 0, timeout=10_000)
    settle(qtbot)
    label = bars.ceiling.label
    assert label.isVisible() and label.toPlainText() == "ceiling"
    view = bars.getViewBox().sceneBoundingRect()
    assert view.contains(label.sceneBoundingRect()), (view, label.sceneBoundingRect())
    assert window.width() <= SCREEN[0]


def test_screenshots_take_a_window_size():
    import argparse

    from lattice_desktop.ui.app import build_parser, window_size

    assert window_size("1366x768") == SCREEN
    for bad in ("1366", "x768", "10x10", "wide"):
        with pytest.raises(argparse.ArgumentTypeError):
            window_size(bad)
    assert build_parser().parse_args(["screenshots", "out", "--size", "1366x768"]).size == SCREEN


ON_A_LAPTOP = """
import sys
from PySide6.QtWidgets import QApplication
from lattice_desktop.ui.window.main_window import MainWindow
from lattice_desktop.ui.window.tabs import FACTORY
from lattice_desktop.ui.window.screenshots import open_and_wait, open_largest_scenario, wait_until
app = QApplication([])
window = MainWindow(sys.argv[1], auto_demo=False)
window.show()
wait_until(lambda: window.runs_loaded, 30_000)
screen = app.primaryScreen().availableGeometry()
print(screen.width(), screen.height(), window.width(), window.height())
open_and_wait(window, int(sys.argv[2]))
window.tabs.setCurrentIndex(FACTORY)
assert open_largest_scenario(window)
for _ in range(20):
    app.processEvents()
print(window.factory_tab.case_box.currentData(), window.width(), window.height())
window.factory_tab.shutdown()
window.close()
"""


@needs_engines
@pytest.mark.slow
def test_on_a_1366x768_screen_the_window_starts_and_stays_within_it(tmp_path, lattice_runs):
    """A real 1366x768 offscreen screen (the platform's config file), in a process of its own:
    the window starts within its available geometry and stays there once stress-512 is open."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    path, ids = lattice_runs
    config = tmp_path / "screen.json"
    config.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "laptop",
                        "x": 0,
                        "y": 0,
                        "width": SCREEN[0],
                        "height": SCREEN[1],
                        "logicalDpi": 96,
                        "dpr": 1,
                    }
                ]
            }
        )
    )
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    done = subprocess.run(
        [sys.executable, "-c", ON_A_LAPTOP, str(path), str(ids["lines"])],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, largest = done.stdout.split("\n")[:2]
    screen_w, screen_h, width, height = map(int, first.split())
    assert (screen_w, screen_h) == SCREEN
    assert width <= screen_w and height <= screen_h
    name, width, height = largest.split()
    assert name == "stress-512" and int(width) <= screen_w and int(height) <= screen_h, largest


def test_a_very_long_model_name_is_elided_not_widening_the_window(qtbot, db_path, toy_case, settings):
    from PySide6.QtWidgets import QLabel

    from tests.ui.conftest import grade_into, write_submission

    model = "an-extremely-long-model-name-" * 8 + "with words " * 10
    folder = write_submission(toy_case.root / "other" / "long", "echo", model=model)
    run_id = grade_into(db_path, toy_case.case_path, folder)[0]
    window = MainWindow(str(db_path), auto_demo=False, settings=settings)
    qtbot.addWidget(window)
    window.resize(*SCREEN)
    window.show()
    qtbot.waitUntil(lambda: window.runs_loaded, timeout=10_000)
    open_run(qtbot, window, run_id)
    settle(qtbot)
    title = window.header.title
    assert window.width() <= SCREEN[0] and window.minimumSizeHint().width() <= SCREEN[0]
    assert title.text().endswith(model) and title.toolTip() == title.text()
    painted = QLabel.text(title)  # what the label draws
    assert painted.endswith("…") and len(painted) < len(title.text())
