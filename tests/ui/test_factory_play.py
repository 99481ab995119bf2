"""Play on an opened file: drawn by the reference until the fast engine has been confirmed
against it (in a child process, snapshot by snapshot), then by the fast engine, and the
status always says which engine draws and how far it is confirmed."""

from __future__ import annotations

import dataclasses

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
    assert "wasm reference" in label and f"Play: lines, confirmed to tick {confirmed.confirmed_to:,}" in label
    # Said once (not "wasm reference · checksums from the wasm reference"), so that it fits
    # beside the scenario picker in a 1366-pixel window; the long form is in its tooltip.
    assert label.count("wasm reference") == 1, label
    tab.resize(1366 - 440, 700)  # the window's width less the runs list
    qtbot.waitUntil(lambda: tab.engine_label.width() >= tab.engine_label.sizeHint().width(), timeout=5000)
    assert "matched the reference's at every snapshot" in tab.engine_label.toolTip()

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


def test_a_tick_drawn_past_the_confirmation_says_so_and_a_parted_engine_never_plays(qtbot, tab):
    tab.show_scenario_files([LATTICE / "stress" / "stress-64.lat"])
    qtbot.waitUntil(lambda: tab.snapshots is not None and len(tab.snapshots) > 0, timeout=60000)
    whole = tab.confirmation
    assert whole is not None
    # As if the reference's check had only reached tick 30: lines may start from 0, and every
    # frame past 30 carries the warning.
    tab._checksums.confirmation = dataclasses.replace(whole, confirmed_to=30)
    tab.transport.speed.setValue(20)  # slow enough for frames on both sides of tick 30
    said: list[tuple[int, str]] = []
    tab.timer.timeout.connect(lambda: said.append((tab.tick, tab.transport.status.text())))
    tab.toggle_play()
    qtbot.waitUntil(lambda: tab.tick > 45, timeout=60000)
    tab.stop_playing()
    assert any(t <= 30 for t, _ in said) and any(t > 30 for t, _ in said)
    for tick, text in said:
        assert "drawn by lines, confirmed against the reference to tick 30" in text, text
        assert (f"⚠ tick {tick:,} not confirmed yet" in text) == (tick > 30), (tick, text)
    # An engine that parted from the reference never draws: Play uses the reference.
    tab._checksums.confirmation = dataclasses.replace(whole, confirmed_to=20, parted_at=30)
    said.clear()
    tab.show_tick(0)
    qtbot.waitUntil(lambda: tab.settled, timeout=30000)
    tab.toggle_play()
    qtbot.waitUntil(lambda: len(said) > 3 or not tab.timer.isActive(), timeout=60000)
    tab.stop_playing()
    assert tab.player.last_engine is None
    assert said and all(
        "drawn by wasm reference (lines parted from it at tick 30)" in text for _, text in said
    )
