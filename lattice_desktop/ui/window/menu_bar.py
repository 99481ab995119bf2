"""The main window's menu bar, in the order a user reads it: File (grade, open, recent,
the demo, Grade many, cancel, export, harness imports, preferences, quit), View (filter,
refresh, a shortcut per tab) and Help. Every entry calls a command the window or one of
its parts already has; the dialogs behind them are `WindowMenus`'."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu


@dataclass(frozen=True)
class MenuBarActions:
    """The entries the window enables and disables as grading starts and ends."""

    grade: QAction
    cancel: QAction
    recent: QMenu


def build_menu_bar(window: Any) -> MenuBarActions:
    """Fill `window`'s menu bar (a MainWindow with its menus, tabs and run actions built)."""
    menus = window.menus
    add = menus.add_action
    file_menu = window.menuBar().addMenu("&File")
    grade = add(file_menu, "&Grade submission…", "Ctrl+G", window.grade_submission)
    add(file_menu, "&Open case…", "Ctrl+O", window.choose_case)
    menus.add_open_scenario(file_menu)
    recent = menus.add_recent(
        file_menu,
        [
            ("Cases", window.recent_cases, window.open_case),
            ("Submissions", window.recent_submissions, window.grade_submission),
            ("Scenarios", window.recent_scenarios, lambda path: window.open_scenarios([path])),
        ],
    )
    add(file_menu, "Grade the &demo samples", None, window.grade_demo)
    add(file_menu, "Grade &many…", None, window.grade_many)
    cancel = add(file_menu, "&Cancel grading", "Esc", window.cancel_grading)
    cancel.setEnabled(False)
    window.run_actions.add_export_menu(file_menu)
    file_menu.addSeparator()
    file_menu.addActions(window.harness.actions)
    file_menu.addSeparator()
    menus.add_preferences(file_menu)
    add(file_menu, "&Quit", QKeySequence.StandardKey.Quit, window.close)
    view = window.menuBar().addMenu("&View")
    add(view, "&Filter runs", QKeySequence.StandardKey.Find, window.runs_panel.focus_filter)
    add(view, "&Refresh", QKeySequence.StandardKey.Refresh, window.refresh_all)
    view.addSeparator()
    window.tabs.add_view_actions(view)
    menus.add_help(window.menuBar().addMenu("&Help"))
    return MenuBarActions(grade, cancel, recent)
