"""Grade many's status ticks between the batch's reports: elapsed time from the moment the
user asked (the cluster's start included), the time left counting down, and no estimate
until there is one. Driven by a hand-set clock: nothing here depends on the machine's speed."""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.batch.driver import BatchProgress
from lattice_desktop.ui.grading.batch_op import BatchOp, BatchStatus


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_status_ticks_from_the_start_and_counts_down(qtbot, tmp_path):
    clock = Clock()
    status = BatchStatus(BatchOp(writer=None), clock=clock)
    qtbot.addWidget(status)
    status.begin(Path("field"))
    assert status.ticker.isActive()
    clock.now += 7
    status.tick()
    assert status.label.text() == "Grading many: starting a local cluster for field… 00:07"

    clock.now += 1  # the smoke tests are done: no estimate yet
    status.on_progress(BatchProgress(26, 38, 0, 2, 8.0, cost_done=0, cost_total=2 * 266240, costing=0.5))
    assert status.label.text().endswith("00:08 elapsed · --:-- left")

    clock.now += 12  # stress jobs: half the cells answered, 12 s after the first was sent
    status.on_progress(
        BatchProgress(27, 38, 0, 2, 20.0, cost_done=266240, cost_total=2 * 266240, costing=12.0)
    )
    assert status.label.text().endswith("00:20 elapsed · 00:12 left")
    clock.now += 5  # no report for 5 s: the times move on by themselves
    status.tick()
    assert status.label.text() == "Grading many: 27/38 jobs · 0/2 runs · 00:25 elapsed · 00:07 left"

    status.end()
    assert not status.ticker.isActive() and status.isHidden()
