"""The main window's File › Open scenario…, Recent and Preferences…, and its Help menu
(user guide, keyboard shortcuts, About). It stores and applies the preferences it can (the
theme) and says the rest through signals; it knows nothing of the main window beyond the
widgets it is given."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QTabWidget, QWidget

from lattice_desktop.ui.common.dialogs import DialogFolder, Recent, choose_scenario_files
from lattice_desktop.ui.common.theme import use_theme
from lattice_desktop.ui.window.help_dialogs import (
    GuideDialog,
    ShortcutsDialog,
    about_box,
    guide_path,
    shortcut_rows,
)
from lattice_desktop.ui.window.preferences import (
    Preferences,
    PreferencesDialog,
    load_preferences,
    save_preferences,
)

ShortcutLike = str | QKeySequence | QKeySequence.StandardKey


class WindowMenus(QObject):
    scenarios_chosen = Signal(list)  # [Path]: scenario files to show in the Factory tab
    preferences_changed = Signal(object)  # Preferences, stored; the theme already applied
    message = Signal(str, str)  # a message for the message bar, and its kind

    def __init__(
        self,
        settings: QSettings,
        *,
        database_in_use: str,
        window: QMainWindow,
        tabs: QTabWidget,
        factory: QWidget,
    ) -> None:
        super().__init__(window)
        self.settings, self.database_in_use = settings, database_in_use
        self.window, self.tabs, self.factory = window, tabs, factory
        self.preferences = load_preferences(settings)
        self.guide: GuideDialog | None = None  # Help › User guide, made when first asked for
        use_theme(self.preferences.theme)
        # The Factory tab's keys work once it has the focus: give it when the tab opens.
        tabs.currentChanged.connect(self._focus_factory)

    def add_action(
        self, menu: QMenu, text: str, shortcut: ShortcutLike | None, slot: Callable[[], object]
    ) -> QAction:
        """A menu entry calling `slot`, with its shortcut (None: none)."""
        action = menu.addAction(text)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def add_open_scenario(self, menu: QMenu) -> None:
        self.add_action(menu, "Open &scenario…", "Ctrl+Shift+O", self.choose_scenarios)

    def add_recent(
        self, menu: QMenu, sections: Sequence[tuple[str, Recent, Callable[[Path], object]]]
    ) -> QMenu:
        """File › Recent: each section's recent paths; choosing one calls its section's
        handler with that path (each action holds its own call)."""
        recent = menu.addMenu("Recent")

        def fill() -> None:
            recent.clear()
            for title, paths, handler in sections:
                items = paths.items()
                if items:  # a header over nothing would say there is something
                    recent.addSection(title)
                for item in items:
                    recent.addAction(item).setData(partial(handler, Path(item)))
            if recent.isEmpty():
                recent.addAction("(nothing yet)").setEnabled(False)

        recent.aboutToShow.connect(fill)
        recent.triggered.connect(self._open_recent)
        return recent

    @Slot(QAction)
    def _open_recent(self, action: QAction) -> None:
        call = action.data()
        if callable(call):
            call()

    def add_preferences(self, menu: QMenu) -> None:
        self.add_action(menu, "&Preferences…", "Ctrl+,", self.show_preferences)

    def add_help(self, menu: QMenu) -> None:
        self.add_action(menu, "&User guide", None, self.show_guide)
        self.add_action(
            menu, "&Keyboard shortcuts", QKeySequence.StandardKey.HelpContents, self.show_shortcuts
        )
        self.add_action(menu, "&About Lattice Desktop", None, self.show_about)

    @Slot()
    def choose_scenarios(self) -> None:
        paths = choose_scenario_files(self.window, DialogFolder(self.settings))
        if paths:
            self.scenarios_chosen.emit(paths)

    @Slot()
    def show_preferences(self) -> None:
        dialog = PreferencesDialog(self.preferences, database_in_use=self.database_in_use, parent=self.window)
        if dialog.exec() == PreferencesDialog.DialogCode.Accepted:
            self.apply_preferences(dialog.preferences())

    def apply_preferences(self, preferences: Preferences) -> None:
        """Store them and apply the theme; the database opens at the next start."""
        changed_db = preferences.database != self.preferences.database
        self.preferences = preferences
        save_preferences(self.settings, preferences)
        use_theme(preferences.theme)
        self.preferences_changed.emit(preferences)
        if changed_db:
            self.message.emit("The new database opens when Lattice Desktop starts again.", "info")

    @Slot()
    def show_guide(self) -> None:
        """Not modal: the guide stays open beside the window; asking again brings it forward."""
        if self.guide is None:
            self.guide = GuideDialog(guide_path(), self.window)
        elif self.guide.isVisible():
            self.guide.raise_()
        self.guide.show()

    @Slot()
    def show_shortcuts(self) -> None:
        ShortcutsDialog(shortcut_rows(self.window, self.factory), self.window).exec()

    @Slot()
    def show_about(self) -> None:
        about_box(self.window).exec()

    @Slot(int)
    def _focus_factory(self, index: int) -> None:
        if self.tabs.widget(index) is self.factory.parentWidget():  # its tab's page
            self.factory.setFocus()
