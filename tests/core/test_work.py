"""The one cancel-and-progress object: cancel hooks, steps, and parts of a whole."""

from __future__ import annotations

import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.work import Step, Work


def test_cancel_runs_each_hook_once_and_later_hooks_at_once():
    calls: list[str] = []
    work = Work()
    work.on_cancel(lambda: calls.append("early"))
    assert not work.cancelled
    work.raise_if_cancelled()  # nothing yet
    work.cancel()
    work.cancel()
    work.on_cancel(lambda: calls.append("late"))
    assert calls == ["early", "late"] and work.cancelled
    with pytest.raises(Cancelled):
        work.raise_if_cancelled()


def test_steps_reach_the_listener_clamped_and_parts_map_into_the_whole():
    steps: list[Step] = []
    work = Work(steps.append)
    work.report(0.25, "a quarter", item=7)
    second_half = work.part(0.5, 1.0)
    second_half.report(0.5, "half of the second half")
    second_half.part(0.0, 0.5).report(2.0, "clamped to its end")
    work.report(-1, "clamped to the start")
    assert [(s.fraction, s.message) for s in steps] == [
        (0.25, "a quarter"),
        (0.75, "half of the second half"),
        (0.75, "clamped to its end"),
        (0.0, "clamped to the start"),
    ]
    assert steps[0].item == 7 and work.step == steps[-1] == second_half.step
    second_half.cancel()
    assert work.cancelled  # a part shares the cancel of the whole


def test_a_long_simulation_reports_and_stops_between_snapshots():
    scenario = parse_scenario(generate(3, width=30, height=20, ticks=400, snapshot=50).encode())
    steps: list[Step] = []
    work = Work(steps.append)
    assert len(simulate(scenario, work=work)) == 8
    assert [s.fraction for s in steps] == [50 * (i + 1) / 400 for i in range(8)]

    def cancel_at_the_third(step: Step) -> None:
        if step.fraction >= 0.375:
            stopping.cancel()  # as the app's Cancel would, from another thread

    stopping = Work(cancel_at_the_third)
    with pytest.raises(Cancelled):
        simulate(scenario, work=stopping)
    assert stopping.step.fraction == 0.375
