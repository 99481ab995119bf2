"""The main window's ops: every background job registers, so closing is one
`cancel_all`; and views refresh only when what an op stored is their data."""

from __future__ import annotations

from lattice_desktop.outcomes import Verdict
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.window.tabs import FACTORY

from .conftest import drain, make_toy_case, write_submission


def count_board_refreshes(window, monkeypatch) -> list[int]:
    calls: list[int] = []
    original = window.leaderboard_tab.refresh

    def refresh() -> None:
        calls.append(1)
        original()

    monkeypatch.setattr(window.leaderboard_tab, "refresh", refresh)
    return calls


def test_the_leaderboard_refreshes_only_when_its_data_changed(qtbot, window, toy_case, monkeypatch):
    drain()
    calls = count_board_refreshes(window, monkeypatch)
    with qtbot.waitSignal(window.runs_shown, timeout=10_000):
        window.refresh_runs()  # a read changes nothing
    drain()
    assert calls == []
    window.open_case(toy_case.case_path)
    with qtbot.waitSignal(window.grading.idle, timeout=60_000):
        window.grade_submission(toy_case.submission("echo"))
    drain()
    assert calls == [1]  # once, when the run was stored finished; not when it started
    assert window.leaderboard_tab.fuel_model.rowCount() >= 1


def test_closing_cancels_every_op_the_window_started(qtbot, window, graded, tmp_path):
    spin_case = make_toy_case(tmp_path / "spin-case", fuel_limit=10**15, wall_clock=120)
    spin = write_submission(tmp_path / "spin", "spin", model="model-spin")
    window.open_run(graded["wrong"])
    qtbot.waitUntil(lambda: window.page is not None, timeout=10_000)
    window.tabs.setCurrentIndex(FACTORY)
    window.open_case(spin_case.case_path)
    with qtbot.waitSignal(window.grading.run_created, timeout=60_000):
        window.grade_submission(spin)
    kinds = {type(op).__name__ for op in tasks.ops(window)}
    assert {"GradeOp", "BatchOp", "HarnessOps", "LatestQuery", "StateLoader", "Background"} <= kinds
    with qtbot.waitSignal(window.grading.cancelled, timeout=30_000):
        assert window.cancel_all()  # the spinning wasm is interrupted, the pool is idle
    assert not window.grading.running
    qtbot.waitUntil(
        lambda: any(s.verdict is Verdict.CANCELLED for s in window.runs_panel.model.summaries),
        timeout=10_000,
    )


def test_a_window_reads_its_own_database_not_the_one_opened_last(
    qtbot, make_window, graded, tmp_path, settings
):
    from lattice_desktop.ui.window.main_window import MainWindow

    window = make_window()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    other = MainWindow(str(tmp_path / "other.db"), auto_demo=False, settings=settings)  # opened last, empty
    try:
        qtbot.waitUntil(lambda: other.runs_loaded, timeout=10_000)
        assert other.runs_panel.model.summaries == []
        with qtbot.waitSignal(window.runs_shown, timeout=10_000):
            window.refresh_runs()
        assert sorted(s.id for s in window.runs_panel.model.summaries) == sorted(graded.values())
        with qtbot.waitSignal(window.page_shown, timeout=10_000) as shown:
            window.open_run(graded["echo"])
        assert shown.args[0].run.summary.submission == "echo"
        board = window.leaderboard_tab
        board.fuel_model.set_board(None)  # emptied, so rows can only come from a new read
        board.refresh()  # the tabs' reads too: the board ranks this window's runs
        qtbot.waitUntil(lambda: not board.busy and board.fuel_model.rowCount() >= 1, timeout=10_000)
    finally:
        assert other.cancel_all()
        other.close()
        other.deleteLater()
