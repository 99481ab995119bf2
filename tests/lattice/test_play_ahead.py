"""Playing ahead on a forked simulation: every state it reports is the playback's own state at
that tick, in order, up to the end of the run; the playback's simulation is left alone."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.lattice.play_ahead import PlayAhead
from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.resources import CASES
from lattice_desktop.work import Work

STRESS_64 = CASES / "lattice" / "stress" / "stress-64.lat"


@pytest.fixture(scope="module")
def playback() -> Playback:
    engine = reference_engine()
    if engine is None:
        pytest.skip("the bundled reference engine is not built")
    return Playback(STRESS_64.read_bytes(), engine)


def same(a, b) -> bool:
    return (
        a.tick == b.tick
        and np.array_equal(a.slots, b.slots)
        and np.array_equal(a.source_buffer, b.source_buffer)
        and dict(a.sink_counts) == dict(b.sink_counts)
        and dict(a.assemblers) == dict(b.assemblers)
    )


def test_every_state_played_is_the_playbacks_state_at_its_tick(playback):
    ahead = PlayAhead(playback, 7, speed=1000)
    states = []

    def drawn(step) -> None:  # the screen: draws at once, then asks for the next
        if step.item is not None:
            states.append(step.item)
            ahead.shown()

    live = playback.sim.tick
    assert ahead.run(Work(drawn)) == playback.ticks
    assert playback.sim.tick == live  # the play stepped a simulation of its own
    ticks = [s.tick for s in states]
    assert ticks[0] == 7 and ticks[-1] == playback.ticks and ticks == sorted(set(ticks))
    for state in states[:: max(1, len(states) // 6)] + states[-1:]:
        assert same(state, playback.state_at(state.tick)), state.tick
    fork = playback.fork(30)
    assert fork is not playback.sim and fork.tick == 30


def test_cancelling_stops_the_play_before_another_state(playback):
    ahead = PlayAhead(playback, 0, speed=1000)
    got = []

    def cancel_at_first(step) -> None:
        if step.item is not None:
            got.append(step.item.tick)
            if len(got) == 1:
                ahead.shown()
                work.cancel()  # nothing more may arrive, and the run ends

    work = Work(cancel_at_first)
    with pytest.raises(Cancelled):
        ahead.run(work)
    assert got == [0]
