"""`lattice-desktop open PATH…` as a user types it: a path that does not exist is said on
stderr with exit 2 before any window opens; the user's own file on a fresh database opens
alone, without the first-start demo grading beside it. Runs the real app's `main` in its
own process, on an empty HOME."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from lattice_desktop.resources import CASES
from tests.ui.app_process import run_app_script

# Once the window has read its runs and the files named are open, report what it is doing
# (after every task it started has ended) and quit.
REPORT_AND_QUIT = """
import json, sys
from PySide6.QtCore import QTimer
from lattice_desktop.ui import app
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.window import main_window

def watch(window):
    def check():
        if not (window.runs_loaded and window.factory_tab.scenario_files):
            return
        timer.stop()
        tasks.pool().waitForDone(60_000)
        state = {
            "grading": window.grading_actions.busy,
            "demo_pending": window.demo_resume.pending(),
            "scenarios": [p.name for p in window.factory_tab.scenario_files],
            "runs": len(window.runs_panel.model.summaries),
        }
        print(json.dumps(state), flush=True)
        window.close()
    timer = QTimer(window)
    timer.timeout.connect(check)
    timer.start(20)

shown = main_window.MainWindow.show
main_window.MainWindow.show = lambda self: (watch(self), shown(self))[1]
sys.exit(app.main(sys.argv[1:]))
"""


def launch(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return run_app_script(REPORT_AND_QUIT, "--db", str(tmp_path / "fresh.db"), *args, home=tmp_path)


def test_open_on_a_missing_file_says_so_and_opens_no_window(tmp_path):
    done = launch(tmp_path, "open", str(tmp_path / "nowhere.lat"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""  # no window was shown, so nothing reported
    assert done.stderr == f"lattice-desktop: no such file or folder: {tmp_path / 'nowhere.lat'}\n"
    assert not (tmp_path / "fresh.db").exists()  # and no database was made for it


def test_open_on_a_fresh_database_shows_the_file_alone_without_grading_the_demo(tmp_path):
    scenario = sorted((CASES / "lattice" / "smoke").glob("*.lat"))[0]
    done = launch(tmp_path, "open", str(scenario))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # Qt's offscreen platform notes are kept off stderr too
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state == {"grading": False, "demo_pending": False, "scenarios": [scenario.name], "runs": 0}
