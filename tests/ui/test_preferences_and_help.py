"""Preferences kept with QSettings, the Help menu's shortcut list and About box, and the
launcher's one clear line when there is no display."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtCore import QSettings, qVersion

from lattice_desktop import __version__
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.window.help_dialogs import FUEL_NOTE, ShortcutsDialog, about_text, shortcut_rows
from lattice_desktop.ui.window.preferences import (
    Preferences,
    PreferencesDialog,
    load_preferences,
    save_preferences,
    stored_database,
)


def test_preferences_round_trip_and_survive_bad_values(tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    assert load_preferences(settings) == Preferences()
    chosen = Preferences(database=str(tmp_path / "other.db"), workers=3, theme="dark")
    save_preferences(settings, chosen)
    again = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    assert load_preferences(again) == chosen
    again.setValue("grading/workers", "many")
    again.setValue("appearance/theme", "purple")
    assert load_preferences(again) == Preferences(database=chosen.database)


def test_the_stored_database_applies_unless_the_environment_names_one(tmp_path, monkeypatch):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    save_preferences(settings, Preferences(database="/data/runs.db"))
    monkeypatch.delenv("LATTICE_DESKTOP_DB", raising=False)
    assert stored_database(settings) == "/data/runs.db"
    monkeypatch.setenv("LATTICE_DESKTOP_DB", str(tmp_path / "env.db"))
    assert stored_database(settings) is None


def test_the_dialog_edits_them_and_the_window_applies_and_stores_them(qtbot, window, settings, monkeypatch):
    monkeypatch.delenv("LATTICE_DESKTOP_THEME", raising=False)
    dialog = PreferencesDialog(window.menus.preferences, database_in_use="x.db", parent=window)
    qtbot.addWidget(dialog)
    dialog.workers.setValue(5)
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog.database.setText(" /srv/lattice.db ")
    chosen = dialog.preferences()
    assert chosen == Preferences(database="/srv/lattice.db", workers=5, theme="dark")
    try:
        with qtbot.waitSignal(window.menus.preferences_changed):
            window.menus.apply_preferences(chosen)
        assert window.grading.workers == 5
        assert theme.is_dark()
        assert "starts again" in window.message_bar.message()
        settings.sync()
        assert load_preferences(settings) == chosen
    finally:
        theme.use_theme("system")


def test_help_lists_the_shortcuts_the_keys_really_have(qtbot, window):
    rows = shortcut_rows(window, window.factory_tab)
    dialog = ShortcutsDialog(rows, window)
    qtbot.addWidget(dialog)
    texts = dialog.texts()
    for where, what, keys in [
        ("Factory tab", "Play / pause", "Space"),
        ("Factory tab", "One tick forward", "Right"),
        ("Factory tab", "Previous snapshot", "Shift+Left"),
        ("Factory tab", "Next snapshot", "Shift+Right"),
        ("Factory tab", "Next divergent snapshot", "D"),
        ("File", "Open scenario…", "Ctrl+Shift+O"),
        ("File", "Grade submission…", "Ctrl+G"),
        ("File", "Preferences…", "Ctrl+,"),
    ]:
        assert (where, what, keys) in texts


def test_about_names_every_version_and_the_fuel_caveat():
    text = about_text()
    assert f"Lattice Desktop {__version__}" in text
    assert f"wasmtime {WASMTIME_VERSION}" in text and f"Qt {qVersion()}" in text
    assert FUEL_NOTE in text and "comparable only within one wasmtime version" in FUEL_NOTE


def launcher(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}}
    return subprocess.run(
        [sys.executable, "-m", "lattice_desktop", *args],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_a_display_the_app_says_so_in_one_line_and_names_the_headless_commands():
    for args in ((), ("open", "x.lat"), ("x.lat",)):
        done = launcher(*args)
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert "no display" in lines[0]
        for command in ("grade", "runs", "leaderboard", "scenario", "screenshots"):
            assert command in lines[0]
    done = launcher("--version")  # the command line needs no display
    assert done.returncode == 0 and done.stdout.strip() == f"lattice-desktop {__version__}"
