"""The Factory tab on a real graded run: the canvas shows exactly the reference's state,
the snapshot list marks the first divergence, keys drive the transport, Diff outlines."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt, QThreadPool

from lattice_desktop.grading.session import grade_and_store
from lattice_desktop.lattice.rules import Factory
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.manifest.case import load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory.raster import Region, Static, render
from lattice_desktop.ui.factory_tab import FactoryTab

LATTICE = CASES / "lattice"
OFFSCREEN_SHOW = "This plugin does not support propagateSizeHints"
pytestmark = [
    pytest.mark.skipif(not (LATTICE / "submissions" / "buggy" / "engine.wasm").is_file(),
                       reason="the bundled sample engines are not built"),
    pytest.mark.qt_log_ignore(OFFSCREEN_SHOW),
]


@pytest.fixture
def buggy_run(tmp_path):
    """The bundled case and a stored run of the buggy sample (wrong on a smoke test)."""
    db = open_database(tmp_path / "runs.db")
    writer = Writer(db)
    case = load_case(LATTICE / "case.toml")
    stored = grade_and_store(case, load_submission(LATTICE / "submissions" / "buggy"), writer=writer)
    writer.close()
    return case, load_run(stored.run_id)


@pytest.fixture
def tab(qtbot, buggy_run):
    case, run = buggy_run
    widget = FactoryTab()
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    widget.show_run(run, case)
    qtbot.waitUntil(lambda: widget.canvas.state is not None, timeout=10000)
    yield widget
    widget.shutdown()
    QThreadPool.globalInstance().waitForDone(10000)


def reference_state(case, name: str, tick: int) -> FactoryState:
    factory = Factory(parse_scenario(case.entry(name).input_bytes()))
    factory.run_to(tick)
    return FactoryState.from_factory(factory)


def wait_for_tick(qtbot, tab: FactoryTab, tick: int) -> None:
    qtbot.waitUntil(lambda: tab.canvas.state is not None and tab.canvas.state.tick == tick, timeout=10000)


def test_opens_on_the_first_divergence(tab, buggy_run):
    _, run = buggy_run
    wrong = next(r for r in run.results if r.mismatch is not None)
    assert tab.case_box.currentData() == wrong.name
    first = tab.model.first_divergence
    assert first == wrong.mismatch.index
    assert tab.table.currentIndex().row() == first
    assert tab.canvas.state.tick == tab.snapshots.tick(first) == wrong.mismatch.tick
    assert tab.model.index(first, 4).data() == "✗"
    assert tab.model.index(first, 0).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert tab.transport.timeline.snapshots is tab.snapshots


def test_every_tick_shows_exactly_the_python_reference(qtbot, tab, buggy_run):
    case, _ = buggy_run
    name = tab.case_box.currentData()
    static = Static.of(tab.playback.scenario)
    for tick in (0, 1, tab.playback.ticks, 2, 7):
        tab.show_tick(tick)
        wait_for_tick(qtbot, tab, tick)
        shown, expected = tab.canvas.state, reference_state(case, name, tick)
        assert np.array_equal(shown.slots, expected.slots)
        assert np.array_equal(shown.source_buffer, expected.source_buffer)
        assert shown.sink_counts == expected.sink_counts
        assert shown.assemblers == expected.assemblers
        region = tab.canvas.region
        drawn = render(expected, static, Region(region.x0, region.y0, region.x1, region.y1, region.scale))
        assert np.array_equal(tab.canvas.codes, drawn)


def test_keys_drive_the_transport(qtbot, tab):
    tab.setFocus()
    qtbot.keyClick(tab, Qt.Key.Key_Home)
    wait_for_tick(qtbot, tab, 0)
    qtbot.keyClick(tab, Qt.Key.Key_Right)
    wait_for_tick(qtbot, tab, 1)
    qtbot.keyClick(tab, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    wait_for_tick(qtbot, tab, tab.snapshots.interval)
    qtbot.keyClick(tab, Qt.Key.Key_Left)
    wait_for_tick(qtbot, tab, tab.snapshots.interval - 1)
    qtbot.keyClick(tab, Qt.Key.Key_End)
    wait_for_tick(qtbot, tab, tab.playback.ticks)
    qtbot.keyClick(tab, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    wait_for_tick(qtbot, tab, tab.playback.ticks - tab.snapshots.interval)


def test_selecting_a_row_jumps_there_and_play_advances(qtbot, tab):
    tab.table.selectRow(len(tab.snapshots) - 1)
    wait_for_tick(qtbot, tab, tab.snapshots.tick(len(tab.snapshots) - 1))
    tab.show_tick(0)
    wait_for_tick(qtbot, tab, 0)
    tab.toggle_play()
    qtbot.waitUntil(lambda: tab.tick >= 3, timeout=10000)
    tab.toggle_play()
    assert not tab.timer.isActive()


def test_diff_outlines_the_cells_that_differ(qtbot, tab):
    qtbot.waitUntil(lambda: tab.modes.buttons["Diff"].isEnabled(), timeout=20000)
    tab.modes.buttons["Diff"].setChecked(True)
    qtbot.waitUntil(lambda: "differing record" in tab.diff_list.title.text(), timeout=20000)
    assert tab.diff_list.tree.topLevelItemCount() > 0
    assert not tab.canvas.outlines.path().isEmpty()
    tab.modes.buttons["Reference"].setChecked(True)
    assert tab.canvas.outlines.path().isEmpty()


def test_empty_state(qtbot):
    widget = FactoryTab()
    qtbot.addWidget(widget)
    widget.show_run(None, None)
    assert widget.stack.currentIndex() == 0
    assert "Grade" in widget.empty.text() or "runs list" in widget.empty.text()
