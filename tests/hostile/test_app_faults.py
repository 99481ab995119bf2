"""Hostile submissions through the app: the window survives them and cleans up after them.
(The UI suite covers cancel of running wasm and the traceback dialog; these add a build
cancelled from the window and a module that would crash a small-stack worker.)"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings

from lattice_desktop.manifest import load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.grade_jobs import GradeJob
from lattice_desktop.store.schema import CaseResultRow, Run
from tests.core.wat_cases import ECHO_CASES, module_with_run_body, write_case, write_submission
from tests.hostile.processes import scratch_folders, wait_for_no_descendants
from tests.hostile.test_builds import build_folder

TIMEOUT = 60_000


@pytest.fixture
def window(qtbot, tmp_path):
    from lattice_desktop.ui.window.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(str(tmp_path / "app.db"), auto_demo=False, settings=settings)
    qtbot.addWidget(win)
    yield win
    win.close()


def test_cancelling_a_hanging_build_from_the_window_leaves_nothing(qtbot, window, tmp_path, private_tmp):
    case = write_case(tmp_path / "case", ECHO_CASES, sandbox="wall_clock_s = 20\nbuild_timeout_s = 600")
    sub = load_submission(build_folder(tmp_path / "sub", "echo building; sleep 600"))
    with qtbot.waitSignal(window.grading.run_created, timeout=TIMEOUT):
        window.start_grading([GradeJob(case, sub, allow_build=True, allow_unisolated=True)])
    qtbot.wait(500)  # the build is sleeping
    with qtbot.waitSignals([window.grading.cancelled, window.grading.idle], timeout=TIMEOUT):
        window.cancel_grading()
    run = Run.select().order_by(Run.id.desc()).first()
    assert run.verdict == Verdict.CANCELLED.value
    assert CaseResultRow.select().where(CaseResultRow.run == run.id).count() == 0
    assert wait_for_no_descendants() == []
    assert scratch_folders(private_tmp) == []


def test_deep_recursion_graded_from_the_window_is_a_trap_not_a_crash(qtbot, window, tmp_path):
    wat = module_with_run_body(
        "(drop (call $down (i32.const 0))) (i64.const 0)",
        extra="(func $down (param i32) (result i32) (i32.add (call $down (local.get 0)) (i32.const 1)))",
    )
    case = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10**9)
    sub = load_submission(write_submission(tmp_path / "sub", wat))
    with qtbot.waitSignal(window.grading.graded, timeout=TIMEOUT) as graded:
        window.start_grading([GradeJob(case, sub)], open_result=False)
    result = graded.args[0].report.results[0]
    assert result.outcome is Outcome.TRAP and result.trap_code == "stack_overflow"
    assert not window.error_dialogs
