"""Quitting while the first start grades the demo ends quietly: nothing on stderr (it once
printed "Signal source has been deleted" tracebacks from tasks that queued signals started
as the window closed). Runs the real app's `main` in its own process, on an empty HOME."""

from __future__ import annotations

from tests.ui.app_process import run_app_script

QUIT_DURING_GRADING = """
import sys
from PySide6.QtCore import QTimer
from lattice_desktop.ui import app
from lattice_desktop.ui.window import main_window

def close_soon(window):
    window.grading.job_started.connect(lambda job: QTimer.singleShot(1500, window.close))

shown = main_window.MainWindow.show
main_window.MainWindow.show = lambda self: (close_soon(self), shown(self))[1]
sys.exit(app.main(["--db", sys.argv[1]]))
"""


def test_quitting_while_the_demo_grades_prints_nothing(tmp_path):
    done = run_app_script(QUIT_DURING_GRADING, str(tmp_path / "lattice.db"), home=tmp_path)
    assert done.returncode == 0, done.stderr
    # Not even the offscreen platform's "does not support propagateSizeHints()": the app
    # keeps that line of Qt's off stderr (ui/common/qt_messages.py).
    assert done.stderr == ""
