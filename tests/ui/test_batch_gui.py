"""Grade many from the window: a folder of submissions graded on a local dask cluster, the
runs list and the leaderboard filling in as runs land, and Cancel."""

from __future__ import annotations

import pytest

from lattice_desktop.store.schema import CaseResultRow, Run
from tests.hostile.processes import wait_for_no_descendants

from .conftest import make_toy_case, write_submission

BATCH_TIMEOUT = 120_000


def test_grade_many_fills_the_runs_list_and_the_leaderboard(qtbot, window, tmp_path):
    toy = make_toy_case(tmp_path / "echo-case")
    (toy.samples / "broken").mkdir()
    (toy.samples / "broken" / "submission.toml").write_text("[submission]\nmodel = 1\n")
    window.open_case(toy.case_path)
    steps = []
    window.batch.progress.connect(steps.append)
    with qtbot.waitSignal(window.batch.finished, timeout=BATCH_TIMEOUT) as done:
        window.grade_many(toy.samples)
        assert window.batch_status.isVisible() or not window.isVisible()
    result = done.args[0]
    assert sorted(r.report.submission.model for r in result.runs) == ["model-a", "model-b", "model-c"]
    assert [p.path for p in result.problems] == [str(toy.samples / "broken")]
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3, timeout=10_000)
    qtbot.waitUntil(lambda: window.leaderboard_tab.fuel_model.rowCount() >= 1, timeout=10_000)
    assert window.message_bar.isVisible() or not window.isVisible()
    assert "Graded 3 submission(s)" in window.message_bar.text.text()
    assert "broken/submission.toml" in window.message_bar.text.text()
    assert steps[-1].runs_done == 3 and steps[-1].jobs_done == steps[-1].jobs_total
    assert window.batch_status.isHidden()
    assert wait_for_no_descendants() == []  # the cluster's processes, and multiprocessing's helper, are gone


@pytest.mark.slow
def test_cancel_stops_the_batch_and_keeps_whole_runs_only(qtbot, window, tmp_path):
    toy = make_toy_case(tmp_path / "echo-case", fuel_limit=10**12, wall_clock=60.0)
    # One worker spins until cancelled while the other grades the three quick submissions.
    write_submission(toy.samples / "spin", "spin", model="spinner")
    window.open_case(toy.case_path)
    landed = []
    window.batch.landed.connect(lambda: landed.append(1))
    window.grade_many(toy.samples)
    qtbot.waitUntil(lambda: Run.select().count() >= 3, timeout=BATCH_TIMEOUT)  # the three quick ones
    with qtbot.waitSignal(window.batch.cancelled, timeout=60_000):
        window.batch_status.cancel()
    assert not window.batch.running
    assert Run.select().count() == 3  # the spinner never finished: nothing of it is stored
    assert CaseResultRow.select().count() == sum(1 for _ in Run.select()) * 2
    assert landed
