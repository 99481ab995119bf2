"""Play on an opened file: drawn by the reference until the fast engine has been confirmed
against it (in a child process, snapshot by snapshot), then by the fast engine, and the
status always says which engine draws and how far it is confirmed."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QThreadPool

from lattice_desktop.resources import CASES
from lattice_desktop.ui.factory.tab import FactoryTab

LATTICE = CASES / "lattice"
pytestmark = pytest.mark.skipif(
    not (LATTICE / "submissions" / "lines" / "engine.wasm").is_file(),
    reason="the sample engines are not built",
)


@pytest.fixture
def tab(qtbot):
    widget = FactoryTab()
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    yield widget
    widget.shutdown()
    QThreadPool.globalInstance().waitForDone(20000)


def play_through(qtbot, tab: FactoryTab) -> tuple[list[str], list]:
    """Play from tick 0 to the end at 1,000 ticks a second: the status each frame, the states drawn."""
    tab.show_tick(0)
    qtbot.waitUntil(lambda: tab.settled, timeout=30000)
    tab.transport.speed.setValue(1000)
    said: list[str] = []
    drawn: list = []
    tab.timer.timeout.connect(lambda: said.append(tab.transport.status.text()))
    shown = tab.player.show_played
    tab.player.show_played = lambda state: (drawn.append(state), shown(state))  # type: ignore[method-assign]
    tab.toggle_play()
    qtbot.waitUntil(lambda: not tab.timer.isActive(), timeout=60000)
    tab.player.show_played = shown  # type: ignore[method-assign]
    return said, drawn


def test_a_file_plays_with_the_fast_engine_once_it_is_confirmed(qtbot, tab):
    tab.show_scenario_files([LATTICE / "stress" / "stress-64.lat"])
    qtbot.waitUntil(lambda: tab.canvas.state is not None, timeout=30000)
    said, _ = play_through(qtbot, tab)  # the confirmation may be under way: either engine, said
    assert said and all(
        "drawn by wasm reference" in s or "drawn by lines, confirmed against the reference to tick" in s
        for s in said
    ), said

    qtbot.waitUntil(lambda: tab.snapshots is not None and len(tab.snapshots) > 0, timeout=60000)
    confirmed = tab.confirmation
    assert confirmed is not None and confirmed.name == "lines" and confirmed.parted_at is None
    assert (
        confirmed.confirmed_to
        == tab.playback.ticks // tab.playback.scenario.snapshot * tab.playback.scenario.snapshot
    )
    assert list(tab.snapshots.expected) == list(confirmed.reference)  # the table: the reference's checksums
    label = tab.engine_label.text()  # the map's heading says what draws a seek and what plays
    assert (
        "wasm reference" in label
        and f"Play: lines, confirmed against it at each snapshot to tick {confirmed.confirmed_to:,}" in label
    )

    said, drawn = play_through(qtbot, tab)
    assert tab.player.ahead is None and drawn[-1].tick == tab.playback.ticks
    assert any(
        f"drawn by lines, confirmed against the reference to tick {confirmed.confirmed_to:,}" in s
        for s in said
    )
    for state in drawn[:: max(1, len(drawn) // 5)]:  # what lines drew is the reference's state
        reference = tab.playback.state_at(state.tick)
        assert np.array_equal(state.slots, reference.slots) and dict(state.assemblers) == dict(
            reference.assemblers
        )
