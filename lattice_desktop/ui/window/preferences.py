"""Settings kept with QSettings — the database, grading worker threads, the theme — and the
Preferences dialog that edits them. `--db` and LATTICE_DESKTOP_DB still win over the
stored database; LATTICE_DESKTOP_THEME over the stored theme."""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.store.database import default_location

THEMES = ("system", "light", "dark")
MAX_WORKERS = max(8, 2 * (os.cpu_count() or 1))


@dataclass(frozen=True)
class Preferences:
    database: str = ""  # empty: LATTICE_DESKTOP_DB, else the user data folder
    workers: int = 2  # threads grading one submission's cases
    theme: str = "system"


def load_preferences(settings: QSettings) -> Preferences:
    """What is stored, with anything missing or malformed replaced by its default."""
    default = Preferences()
    try:
        workers = int(str(settings.value("grading/workers", default.workers)))
    except (TypeError, ValueError):
        workers = default.workers
    theme = str(settings.value("appearance/theme", default.theme))
    return Preferences(
        database=str(settings.value("storage/database", "") or ""),
        workers=min(max(workers, 1), MAX_WORKERS),
        theme=theme if theme in THEMES else default.theme,
    )


def save_preferences(settings: QSettings, preferences: Preferences) -> None:
    settings.setValue("storage/database", preferences.database)
    settings.setValue("grading/workers", preferences.workers)
    settings.setValue("appearance/theme", preferences.theme)
    settings.sync()


def stored_database(settings: QSettings) -> str | None:
    """The stored database, unless LATTICE_DESKTOP_DB names one (None: use the default)."""
    return None if os.environ.get("LATTICE_DESKTOP_DB") else (load_preferences(settings).database or None)


class PreferencesDialog(QDialog):
    def __init__(
        self, preferences: Preferences, *, database_in_use: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.database = QLineEdit(preferences.database)
        self.database.setPlaceholderText(f"default: {default_location()}")
        self.database.setToolTip("An SQLite file or a postgresql://user@host/db URL")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.database, 1)
        row.addWidget(browse)
        self.workers = QSpinBox()
        self.workers.setRange(1, MAX_WORKERS)
        self.workers.setValue(preferences.workers)
        self.workers.setToolTip("Cases graded at once; fuel is the same whatever the count")
        self.theme = QComboBox()
        for name in THEMES:
            self.theme.addItem(name.capitalize() if name != "system" else "Follow the system", name)
        self.theme.setCurrentIndex(THEMES.index(preferences.theme))
        form = QFormLayout()
        form.addRow("Database", row)
        note = QLabel(f"In use now: {database_in_use}. A new database opens when the app starts again.")
        note.setWordWrap(True)
        note.setStyleSheet("color: palette(mid);")
        form.addRow("", note)
        form.addRow("Worker threads", self.workers)
        form.addRow("Theme", self.theme)
        button = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(button.Ok | button.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(560, self.sizeHint().height())

    def preferences(self) -> Preferences:
        return Preferences(
            database=self.database.text().strip(),
            workers=self.workers.value(),
            theme=self.theme.currentData(),
        )

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Database file",
            self.database.text() or default_location(),
            "SQLite databases (*.db *.sqlite);;All files (*)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.database.setText(path)
