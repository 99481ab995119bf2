"""The runs list's context menu and File › Export on the real window: re-grade, open and
copy folders, hide and delete (the field and leaderboard follow), exports written to disk."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from lattice_desktop.store.queries import list_runs

from .conftest import drain


def _texts(menu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def _action(menu, text: str):
    return next(a for a in menu.actions() if a.text() == text)


def _summary(window, run_id: int):
    return next(s for s in window.runs_panel.model.summaries if s.id == run_id)


def _open(qtbot, window, run_id: int) -> None:
    window.open_run(run_id)
    qtbot.waitUntil(lambda: window.page is not None and window.page.run.id == run_id, timeout=10_000)


def test_a_run_has_a_context_menu_of_what_can_be_done_to_it(window, graded, qtbot):
    window.refresh_all()  # graded outside the window: View › Refresh
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    menu = window.run_actions.menu_for(_summary(window, graded["echo"]))
    assert _texts(menu) == [
        "Re-grade",
        "Open submission folder",
        "Open case folder",
        "Copy submission path",
        "Copy case manifest path",
        "Export run as CSV…",
        "Export run as HTML report…",
        "Hide run",
        "Delete run…",
        "Show hidden runs",
    ]


def test_copy_and_open_name_the_runs_own_folders(window, graded, toy_case, qtbot):
    window.refresh_all()  # graded outside the window: View › Refresh
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    opened: list[QUrl] = []
    window.run_actions.open_url = opened.append  # the desktop's file manager, not started in a test
    menu = window.run_actions.menu_for(_summary(window, graded["wrong"]))
    _action(menu, "Copy submission path").trigger()
    clipboard = QGuiApplication.clipboard()
    qtbot.waitUntil(lambda: clipboard.text() == str(toy_case.submission("wrong")), timeout=10_000)
    _action(menu, "Open case folder").trigger()
    qtbot.waitUntil(lambda: len(opened) == 1, timeout=10_000)
    assert Path(opened[0].toLocalFile()) == toy_case.case_path.parent


def test_hiding_a_run_takes_it_out_of_the_list_and_the_leaderboard(window, graded, qtbot):
    window.refresh_all()  # graded outside the window: View › Refresh
    _open(qtbot, window, graded["echo"])
    board = window.leaderboard_tab.fuel_model
    qtbot.waitUntil(lambda: board.board is not None and len(board.board.entries) == 1, timeout=10_000)
    _action(window.run_actions.menu_for(_summary(window, graded["echo"])), "Hide run").trigger()
    qtbot.waitUntil(
        lambda: graded["echo"] not in [s.id for s in window.runs_panel.model.summaries], timeout=10_000
    )
    qtbot.waitUntil(lambda: board.board is not None and board.board.entries == [], timeout=10_000)
    # Its neighbour opens in its place: a read of its own, which may come back after the
    # list's and the board's.
    qtbot.waitUntil(lambda: window.page is not None and window.page.run.id != graded["echo"])
    assert "is hidden" in window.message_bar.message()
    assert {r.id for r in list_runs(include_hidden=True)} == set(graded.values())  # kept, whole


def test_hidden_runs_can_be_shown_greyed_and_put_back_in_the_field(window, graded, qtbot):
    window.refresh_all()  # graded outside the window: View › Refresh
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    actions = window.run_actions
    _action(actions.menu_for(_summary(window, graded["echo"])), "Hide run").trigger()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 2, timeout=10_000)
    actions.show_hidden_action.setChecked(True)
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    model = window.runs_panel.model
    index = model.index_of_run(graded["echo"])
    assert model.data(index).endswith(" · hidden")
    assert model.data(index, Qt.ItemDataRole.ForegroundRole) is not None  # greyed
    menu = actions.menu_for(_summary(window, graded["echo"]))
    assert "Hide run" not in _texts(menu)
    _action(menu, "Show run in the field again").trigger()
    board = window.leaderboard_tab.fuel_model
    qtbot.waitUntil(lambda: not _summary(window, graded["echo"]).hidden, timeout=10_000)
    qtbot.waitUntil(lambda: board.board is not None and len(board.board.entries) == 1, timeout=10_000)
    actions.show_hidden_action.setChecked(False)


def test_deleting_asks_first_then_the_run_is_gone(window, graded, qtbot, monkeypatch):
    window.refresh_all()  # graded outside the window: View › Refresh
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    answers = iter([QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes])
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: next(answers))
    menu = window.run_actions.menu_for(_summary(window, graded["wrong"]))
    _action(menu, "Delete run…").trigger()  # cancelled: nothing happens
    _action(menu, "Delete run…").trigger()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 2, timeout=10_000)
    assert graded["wrong"] not in {r.id for r in list_runs(include_hidden=True)}
    assert "deleted" in window.message_bar.message()


def test_regrading_grades_the_same_submission_against_its_case_again(window, graded, toy_case, qtbot):
    window.refresh_all()  # graded outside the window: View › Refresh
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    _action(window.run_actions.menu_for(_summary(window, graded["echo"])), "Re-grade").trigger()
    qtbot.waitUntil(lambda: len(list_runs()) == 4 and not window.grading.running, timeout=30_000)
    newest = list_runs()[0]
    assert (newest.model, newest.submission, newest.verdict.value) == ("model-a", "echo", "correct")
    assert window.case_path == toy_case.case_path


def test_file_export_writes_the_open_run_the_list_and_the_leaderboard(window, graded, qtbot, tmp_path):
    window.refresh_all()  # graded outside the window: View › Refresh
    _open(qtbot, window, graded["bytewise"])
    # What the user sees before exporting: the list refreshed (its read may come back after
    # the page's), and the board.
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3)
    actions = window.run_actions
    actions.export_open_run("html", tmp_path / "run.html")
    actions.export_runs("csv", tmp_path / "runs.csv")
    board = window.leaderboard_tab.fuel_model
    qtbot.waitUntil(lambda: board.board is not None and len(board.board.entries) == 1)
    actions.export_board("csv", tmp_path / "board.csv")
    files = [tmp_path / name for name in ("run.html", "runs.csv", "board.csv")]
    drain()  # every export has been written, or has said why not
    assert all(f.is_file() for f in files), window.message_bar.message()
    assert (tmp_path / "run.html").read_text().count("<svg") == 2
    rows = list(csv.DictReader(io.StringIO((tmp_path / "runs.csv").read_text())))
    assert sorted(int(r["run"]) for r in rows) == sorted(graded.values())
    board = list(csv.DictReader(io.StringIO((tmp_path / "board.csv").read_text())))
    assert [(r["section"], r["model"]) for r in board] == [("ranked", "model-a"), ("over_ceiling", "model-b")]
    qtbot.waitUntil(lambda: window.message_bar.message().startswith("Exported "), timeout=10_000)


def test_the_file_menu_offers_every_export(window):
    file_menu = window.menuBar().actions()[0].menu()
    export = next(a.menu() for a in file_menu.actions() if a.text() == "&Export")
    assert [a.text().replace("&", "") for a in export.actions() if not a.isSeparator()] == [
        "This run as CSV…",
        "This run as HTML report…",
        "Runs list as CSV…",
        "Runs list as HTML report…",
        "Leaderboard as CSV…",
        "Leaderboard as HTML report…",
    ]
