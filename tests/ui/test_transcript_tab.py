"""The Transcript tab on the real window: a harness run's events, filtered by kind and by
search, and each metric of its Results view clicked through to the events behind it; a
graded run's Transcript tab says it does not apply."""

from __future__ import annotations

from PySide6.QtCore import Qt

from lattice_desktop.harness.transcript import KINDS
from lattice_desktop.store.harness_runs import load_harness_run
from lattice_desktop.ui.harness.transcript_model import LOADING
from lattice_desktop.ui.window.tabs import NO_TRANSCRIPT, TRANSCRIPT

from .conftest import import_harness_into
from .test_harness_views import open_harness

TIMEOUT = 10_000


def _loaded(qtbot, tab):
    qtbot.waitUntil(lambda: tab.model.head is not None, timeout=TIMEOUT)


def _column(model, name):
    from lattice_desktop.ui.harness.transcript_model import COLUMNS

    col = COLUMNS.index(name)
    return [model.index(r, col).data() for r in range(model.rowCount())]


def _click_metric(qtbot, window, name):
    results = window.harness.results
    row = next(i for i, (n, _m) in enumerate(results.metrics_model.rows) if n == name)
    table = results.metrics_table
    rect = table.visualRect(results.metrics_model.index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_clicking_focus_shows_the_worst_loop_in_the_transcript(qtbot, db_path, make_window):
    stored = import_harness_into(db_path, "looping", "polling")
    window = make_window()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.harness) == 2, timeout=TIMEOUT)
    open_harness(qtbot, window, stored["looping"])
    tab = window.harness.transcript
    _loaded(qtbot, tab)
    window.show()
    _click_metric(qtbot, window, "Focus")
    assert window.tabs.currentIndex() == TRANSCRIPT
    worst = load_harness_run(stored["looping"]).result.loops[0]
    lines = [int(text) for text in _column(tab.model, "Line")]
    assert len(lines) == worst.repetitions and (lines[0], lines[-1]) == (worst.first_line, worst.last_line)
    assert tab.banner.isVisible() and "Focus" in tab.banner.text()
    assert tab.table.currentIndex().row() == 0 and "repetition 1" in tab.detail.toPlainText()

    _click_metric(qtbot, window, "Cost")
    kinds = set(_column(tab.model, "Kind"))
    assert kinds == {"model call", "capture"}
    tab.clear_evidence()
    assert tab.model.rowCount() == tab.model.head.count


def test_filter_by_kind_and_search(qtbot, db_path, make_window):
    stored = import_harness_into(db_path, "polling")
    window = make_window()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.harness) == 1, timeout=TIMEOUT)
    open_harness(qtbot, window, stored["polling"])
    tab = window.harness.transcript
    _loaded(qtbot, tab)
    for kind, button in tab.kind_buttons.items():
        button.setChecked(kind == "capture")
    assert set(_column(tab.model, "Kind")) == {"capture"}
    assert tab.model.rowCount() == tab.model.count_of("capture") > 0
    for button in tab.kind_buttons.values():
        button.setChecked(True)
    qtbot.keyClicks(tab.search_box, "job_status")
    qtbot.keyClick(tab.search_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "matching" in tab.count.text(), timeout=TIMEOUT)
    events = _column(tab.model, "Event")
    assert events and all("job_status" in e for e in events) and LOADING not in events
    tab.search_box.clear()
    assert tab.model.rowCount() == tab.model.head.count


def test_a_graded_run_and_no_run(qtbot, db_path, make_window, graded):
    window = make_window()
    window.open_run(graded["echo"])
    qtbot.waitUntil(lambda: window.page is not None, timeout=TIMEOUT)
    window.tabs.setCurrentIndex(TRANSCRIPT)
    face = window.tabs.widget(TRANSCRIPT).currentWidget()
    assert face.text() == NO_TRANSCRIPT
    assert window.harness.transcript.model.head is None
    assert len(KINDS) == len(window.harness.transcript.kind_buttons)


def test_clicking_a_metric_that_was_not_measured_shows_no_event_and_says_why(qtbot, db_path, make_window):
    # Once clicking Time on a run that captured nothing highlighted run_start as "running
    # time starts here", while Time was "-".
    stored = import_harness_into(db_path, "nothing")
    window = make_window()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.harness) == 1, timeout=TIMEOUT)
    open_harness(qtbot, window, stored["nothing"])
    tab = window.harness.transcript
    _loaded(qtbot, tab)
    window.show()
    _click_metric(qtbot, window, "Time")
    assert window.tabs.currentIndex() == TRANSCRIPT
    assert tab.model.rowCount() == 0
    assert "Time is not measured: nothing was captured" in tab.banner.text()
    _click_metric(qtbot, window, "Focus")  # measured: its evidence (none here) says so
    assert "Evidence for Focus" in tab.banner.text()
    tab.clear_evidence()
    assert tab.model.rowCount() == tab.model.head.count
