"""Closing the window at any moment of a large scenario's opening, or in the seconds after
it, ends the app: every step of the opening (parsing, the reference's run, the map's set-up,
the census, the first seeks, the keyframe walk) is off the GUI thread and cancelled with the
window. (The census's set-up once held a closing window for 3–8 s after a 2048² opening.)

The moments are random but seeded, so a failure can be replayed; how long each close takes
is printed by the app and timed in benchmarks/stop_latency.py, not asserted here."""

from __future__ import annotations

import random

import pytest

from tests.ui.stopping_app import AppRun, closed_by_itself, scenario

pytestmark = pytest.mark.slow  # each moment starts the app on a 1024² scenario

MOMENTS = random.Random(36)
DURING = [round(MOMENTS.uniform(0, 8), 2) for _ in range(3)]  # seconds after the opening began
AFTER = [round(MOMENTS.uniform(0, 3), 2) for _ in range(2)]  # seconds after it was shown


@pytest.fixture(scope="module")
def large(scenario_folder):
    return scenario(scenario_folder, 1024)


@pytest.mark.parametrize(
    ("state", "delay"), [("opening", d) for d in DURING] + [("opened", d) for d in AFTER]
)
def test_closing_at_a_random_moment_of_an_opening_ends_the_app(state, delay, large, tmp_path):
    run = AppRun(tmp_path, state, "open", str(large), close_after=delay)

    stopped = closed_by_itself(run)

    assert stopped.close_seconds is not None  # the window's close returned
    assert stopped.returncode == 0, stopped.stderr  # a normal close's status
    assert "Traceback" not in stopped.stderr, stopped.stderr
    assert stopped.left == []
