"""A second app instance on the same database says so and can switch to the first: the
first raises its window (and opens the paths the second was given). Once a second
instance opened beside the first without a word."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from lattice_desktop.ui import app as app_module
from lattice_desktop.ui.window import one_instance
from lattice_desktop.ui.window.one_instance import OneInstance, database_key

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "resources" / "cases" / "inversions" / "case.toml"


def test_one_database_one_key_whatever_its_spelling(tmp_path, monkeypatch):
    db = tmp_path / "runs.db"
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert database_key(str(db)) == database_key("runs.db") == database_key(str(link / "runs.db"))
    assert database_key(str(db)) != database_key(str(tmp_path / "other.db"))


SECOND = """
import sys
from pathlib import Path
from PySide6.QtCore import QCoreApplication
from lattice_desktop.ui.window.one_instance import OneInstance
app = QCoreApplication([])
other = OneInstance(sys.argv[1])
print(other.first_is_running(), other.ask_first([Path(p) for p in sys.argv[2:]]))
"""


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen has no window stack
def test_a_second_instance_finds_the_first_and_the_first_comes_forward(qtbot, tmp_path):
    db = str(tmp_path / "runs.db")
    window = QWidget()
    qtbot.addWidget(window)
    opened: list[list[Path]] = []
    first = OneInstance(db)
    assert first.listen()
    first.attach(window, open_paths=opened.append)
    assert not OneInstance(str(tmp_path / "other.db")).first_is_running()
    assert not OneInstance(db).listen()  # two at once: the later one is the second

    missing = tmp_path / "missing.lat"
    second = subprocess.Popen(
        [sys.executable, "-c", SECOND, db, str(CASE), str(missing)],
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        stdout=subprocess.PIPE,
        text=True,
    )
    with qtbot.waitSignal(first.asked, timeout=60_000) as asked:
        pass
    qtbot.waitUntil(lambda: second.poll() is not None, timeout=30_000)
    assert second.stdout is not None and second.stdout.read().split() == ["True", "True"]
    second.stdout.close()
    assert asked.args == [[str(CASE), str(missing)]]
    assert window.isVisible() and opened == [[CASE]]  # only what exists is opened


def _start_first_app(tmp_path: Path, db: Path) -> subprocess.Popen:
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "LATTICE_DESKTOP_CACHE": str(home / "cache"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "lattice_desktop", "--db", str(db), "open", str(CASE)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_starting_the_app_on_a_database_already_open_switches_to_it(qapp, tmp_path, monkeypatch):
    db = tmp_path / "runs.db"
    first = _start_first_app(tmp_path, db)
    try:
        deadline = time.monotonic() + 120
        while not OneInstance(str(db)).first_is_running():
            assert first.poll() is None, first.stderr.read().decode() if first.stderr else ""
            assert time.monotonic() < deadline, "the first app never listened"
            time.sleep(0.2)
        asked: list[str] = []
        monkeypatch.setattr(one_instance, "ask_what_to_do", lambda target: asked.append(target) or "switch")
        # The second start: it asks, the first answers, and no window opens here.
        assert app_module._run_window(qapp, str(db), [CASE], grade_demo=False) == 0
        assert asked == [str(db)]
        assert not [w for w in qapp.topLevelWidgets() if w.isVisible()]
        monkeypatch.setattr(one_instance, "ask_what_to_do", lambda target: "cancel")
        assert app_module._run_window(qapp, str(db), [], grade_demo=False) == 0
    finally:
        first.terminate()
        first.wait(30)
        if first.stderr:
            first.stderr.close()
