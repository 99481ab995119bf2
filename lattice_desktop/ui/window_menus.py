"""The main window's File › Open scenario… and Preferences…, and its Help menu (keyboard
shortcuts, About), with what they do: scenario files shown in the Factory tab, and the
stored preferences applied."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu

from lattice_desktop.store.database import describe
from lattice_desktop.ui.help_dialogs import ShortcutsDialog, about_box, shortcut_rows
from lattice_desktop.ui.preferences import (
    Preferences,
    PreferencesDialog,
    load_preferences,
    save_preferences,
)
from lattice_desktop.ui.theme import use_theme

if TYPE_CHECKING:
    from lattice_desktop.ui.main_window import MainWindow


class WindowMenus(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.preferences = load_preferences(window.settings)
        window.grading.workers = self.preferences.workers
        use_theme(self.preferences.theme)
        # The Factory tab's keys work once it has the focus: give it when the tab opens.
        window.tabs.currentChanged.connect(self._focus_factory)

    def _add(self, menu: QMenu, text: str, shortcut, slot) -> QAction:
        action = menu.addAction(text)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def add_open_scenario(self, menu: QMenu) -> None:
        self._add(menu, "Open &scenario…", "Ctrl+Shift+O", self.choose_scenarios)

    def add_preferences(self, menu: QMenu) -> None:
        self._add(menu, "&Preferences…", "Ctrl+,", self.show_preferences)

    def add_help(self, menu: QMenu) -> None:
        self._add(menu, "&Keyboard shortcuts", QKeySequence.StandardKey.HelpContents, self.show_shortcuts)
        self._add(menu, "&About Lattice Desktop", None, self.show_about)

    # Scenario files -------------------------------------------------------------------

    @Slot()
    def choose_scenarios(self) -> None:
        files = self.window.factory_tab.scenario_files
        names, _ = QFileDialog.getOpenFileNames(self.window, "Open scenario",
                                                str(files[-1].parent) if files else "",
                                                "Lattice scenarios (*.lat);;All files (*)")
        if names:
            self.open_scenarios([Path(name) for name in names])

    def open_scenarios(self, paths: list[Path]) -> None:
        """Show scenario files in the Factory tab with the reference engine (nothing is
        graded), beside those already open there; the last one named is shown."""
        window = self.window
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            window.message_bar.show_message(f"No such scenario file: {', '.join(missing)}")
        found = [p.resolve() for p in paths if p.is_file()]
        if not found:
            return
        listed = [p for p in window.factory_tab.scenario_files if p not in found] + found
        window.page = None
        window.show_harness_views(False)
        window.header.show_message(found[-1].name if len(found) == 1 else f"{len(found)} scenario files",
                                   "Scenario file, replayed with the reference engine — nothing is graded")
        window.factory_tab.show_scenario_files(listed, current=found[-1])
        window.tabs.setCurrentIndex(self._factory_index())

    # Preferences and Help -------------------------------------------------------------

    @Slot()
    def show_preferences(self) -> None:
        dialog = PreferencesDialog(self.preferences, database_in_use=describe(self.window.db_target),
                                   parent=self.window)
        if dialog.exec() == PreferencesDialog.DialogCode.Accepted:
            self.apply_preferences(dialog.preferences())

    def apply_preferences(self, preferences: Preferences) -> None:
        """Store them; workers and theme apply now, the database at the next start."""
        changed_db = preferences.database != self.preferences.database
        self.preferences = preferences
        save_preferences(self.window.settings, preferences)
        self.window.grading.workers = preferences.workers
        use_theme(preferences.theme)
        if changed_db:
            self.window.message_bar.show_message(
                "The new database opens when Lattice Desktop starts again.", kind="info")

    @Slot()
    def show_shortcuts(self) -> None:
        ShortcutsDialog(shortcut_rows(self.window, self.window.factory_tab), self.window).exec()

    @Slot()
    def show_about(self) -> None:
        about_box(self.window).exec()

    def _factory_index(self) -> int:
        return self.window.tabs.indexOf(self.window.factory_tab.parentWidget())  # its tab's page

    @Slot(int)
    def _focus_factory(self, index: int) -> None:
        if index == self._factory_index():
            self.window.factory_tab.canvas.setFocus()
