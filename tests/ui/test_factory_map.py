"""The Factory map navigates like a map: wheel zoom around the cursor, drag to pan, pooled
levels of detail that keep a lone item and a lone difference in sight, Go to x,y, Find an
item or entity, bookmarks kept with the run, a speed in ticks a second, the heatmap's
scale, and every pane fitting a 1366×768 window."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt, QThreadPool
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.map_search import SearchError, find_cells, parse_cell
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.scenario import Entity
from lattice_desktop.ui.factory import lod
from lattice_desktop.ui.factory.canvas import FactoryCanvas
from lattice_desktop.ui.factory.palette import HEAT_RGBA
from lattice_desktop.ui.factory.raster import Region
from lattice_desktop.ui.factory.tab import FactoryTab


@pytest.fixture(scope="module")
def big():
    """A generated 256² scenario and its state a few ticks in (items on the belts)."""
    playback = Playback(generate(3, width=256, height=256, ticks=40).encode())
    return playback.scenario, playback.state_at(5)


@pytest.fixture
def canvas(qtbot, big):
    scenario, state = big
    widget = FactoryCanvas()
    qtbot.addWidget(widget)
    widget.resize(600, 600)
    widget.show()
    widget.set_scenario(scenario)
    widget.set_state(state)
    return widget


def view_point(canvas: FactoryCanvas, pos: QPoint) -> QPointF:
    return canvas.box.mapSceneToView(canvas.mapToScene(pos))


def test_the_wheel_zooms_around_the_cursor(canvas):
    pos = QPoint(150, 420)
    before, width = view_point(canvas, pos), canvas.visible_cells().width()
    wheel = QWheelEvent(
        QPointF(pos), QPointF(canvas.mapToGlobal(pos)), QPoint(0, 0), QPoint(0, 240),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(canvas.viewport(), wheel)
    after = view_point(canvas, pos)
    assert canvas.visible_cells().width() < width * 0.9  # zoomed in
    assert abs(after.x() - before.x()) < 0.5 and abs(after.y() - before.y()) < 0.5  # same cell under it


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # a press raises the window
def test_a_drag_pans_the_map(qtbot, canvas):
    canvas.focus_cell(128 * 256 + 128, span=40)
    left = canvas.visible_cells().left()
    viewport = canvas.viewport()
    start, end = QPointF(300, 300), QPointF(200, 300)
    buttons, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    press = QMouseEvent(QMouseEvent.Type.MouseButtonPress, start, start, buttons, buttons, none)
    QApplication.sendEvent(viewport, press)
    for x in np.linspace(300, 200, 6)[1:]:
        point = QPointF(float(x), 300)
        move = QMouseEvent(QMouseEvent.Type.MouseMove, point, point, Qt.MouseButton.NoButton, buttons, none)
        QApplication.sendEvent(viewport, move)
    release = QMouseEvent(
        QMouseEvent.Type.MouseButtonRelease, end, end, buttons, Qt.MouseButton.NoButton, none
    )
    QApplication.sendEvent(viewport, release)
    moved = canvas.visible_cells().left() - left
    cells_per_pixel = canvas.visible_cells().width() / canvas.box.width()
    assert moved == pytest.approx(100 * cells_per_pixel, rel=0.1)  # the map followed the mouse


def test_zoomed_out_a_lone_item_and_a_lone_difference_stay_in_sight(qtbot, big):
    scenario, state = big
    lone = np.zeros_like(state.slots)
    belts = np.argwhere(state.entity == Entity.BELT)
    y, x = (int(v) for v in belts[len(belts) // 2])
    lone[y, x, 0] = 1
    alone = dataclasses.replace(state, slots=lone, source_buffer=np.zeros_like(state.source_buffer))
    widget = FactoryCanvas()
    qtbot.addWidget(widget)
    widget.resize(120, 120)  # 256 cells in ~110 pixels: pooled
    widget.show()
    widget.set_scenario(scenario)
    widget.set_state(alone)
    widget.set_marked([y * scenario.width + x])
    qtbot.waitUntil(lambda: widget.pool > 1)
    widget.draw()
    k = widget.pool
    assert k == lod.pool_factor(widget.pixels_per_cell())
    shown = widget.image._pixels
    assert shown.shape == (-(-scenario.height // k), -(-scenario.width // k))
    full = widget.raster.render(alone, Region(0, 0, scenario.width, scenario.height, 1))
    assert shown[y // k, x // k] == full[y, x]  # the item's tint, not its block's belts or ground
    assert (shown == full[y, x]).sum() == 1  # and nowhere else
    marks = widget.marks.image
    assert marks.shape[:2] == shown.shape and marks[y // k, x // k, 3] > 0
    assert (marks[..., 3] > 0).sum() == 1


def test_pooling_keeps_the_busiest_cell(big):
    _, state = big
    rank = lod.priority(state)
    pixels = np.arange(rank.size, dtype=np.uint32).reshape(rank.shape)
    pooled = lod.pool_pixels(pixels, rank, 4)
    for by, bx in ((0, 0), (10, 20), (31, 40)):
        block = rank[by * 4 : by * 4 + 4, bx * 4 : bx * 4 + 4]
        assert rank.ravel()[pooled[by, bx] & 0xFFFFFF] == block.max()
    assert (pooled >> 24 == 0xFF).all()  # opaque again
    counts = np.zeros(rank.shape, np.int32)
    counts[5, 9] = 3
    assert lod.pool_counts(counts, 4)[1, 2] == 3 and lod.pool_counts(counts, 4).sum() == 3


def test_go_to_and_find(qtbot, big):
    scenario, state = big
    assert parse_cell("12, 40", scenario) == 40 * scenario.width + 12
    for bad in ("12", "300,2", "a,b"):
        with pytest.raises(SearchError):
            parse_cell(bad, scenario)
    cells, what = find_cells("sink", scenario, state)
    assert what == "sink cells" and set(cells.tolist()) == set(
        np.flatnonzero(state.entity == Entity.SINK).tolist()
    )
    item = int(np.unique(state.slots[state.slots > 0])[0])
    cells, _ = find_cells(str(item), scenario, state)
    held = (state.slots == item).any(axis=-1).ravel()
    assert held[cells].sum() == held.sum() > 0
    with pytest.raises(SearchError, match="neither an item"):
        find_cells("unobtainium", scenario, state)


@pytest.fixture
def file_tab(qtbot, tmp_path):
    path = tmp_path / "big.lat"
    path.write_text(generate(5, width=96, height=96, ticks=60))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    widget = FactoryTab()
    widget.transport.bookmarks.settings = settings
    qtbot.addWidget(widget)
    widget.resize(1000, 640)
    widget.show()
    widget.show_scenario_files([path])
    qtbot.waitUntil(lambda: widget.settled, timeout=30000)
    yield widget, path, settings
    widget.shutdown()
    QThreadPool.globalInstance().waitForDone(20000)


def test_the_tab_goes_to_a_cell_and_steps_through_matches(qtbot, file_tab):
    tab, _, _ = file_tab
    tab.tools.goto.setText("60,50")
    tab.tools.goto.returnPressed.emit()
    (left, right), (top, bottom) = tab.canvas.box.viewRange()
    assert abs((left + right) / 2 - 60.5) < 1 and abs((top + bottom) / 2 - 50.5) < 1
    tab.tools.goto.setText("500,1")
    tab.tools.goto.returnPressed.emit()
    assert "outside the 96×96 grid" in tab.tools.message.text()
    tab.tools.query.setText("source")
    tab.tools.step(1)
    sources = np.flatnonzero(tab.canvas.state.entity == Entity.SOURCE)
    assert tab.tools.count.text().startswith(f"1 of {len(sources):,} source cells")
    tab.tools.step(-1)  # wraps round to the last
    assert tab.tools.count.text().startswith(f"{len(sources):,} of {len(sources):,}")
    focus = tab.canvas.focus.rect().center()
    assert int(focus.y()) * 96 + int(focus.x()) == sources[-1]


def test_bookmarks_are_kept_with_the_scenario(qtbot, file_tab):
    tab, path, settings = file_tab
    for tick in (7, 3):
        tab.show_tick(tick)
        qtbot.waitUntil(lambda t=tick: tab.settled and tab.tick == t)
        tab.transport.bookmarks.toggle()
    assert tab.transport.bookmarks.ticks == [3, 7] and tab.transport.bookmarks.text() == "★ 2"
    tab.transport.bookmarks.step(1)
    qtbot.waitUntil(lambda: tab.settled and tab.tick == 7)
    tab.show_scenario_files([path])  # opened again: the same bookmarks
    qtbot.waitUntil(lambda: tab.settled)
    assert tab.transport.bookmarks.ticks == [3, 7]
    assert settings.value(tab.transport.bookmarks.key) == ["3", "7"]


def test_the_speed_runs_from_one_to_a_thousand_ticks_a_second(file_tab):
    tab, _, _ = file_tab
    speed = tab.transport.speed
    assert (speed.minimum(), speed.maximum()) == (1, 1000)
    tab.transport.change_speed(-10_000)
    assert tab.transport.ticks_per_second == 1
    tab.transport.change_speed(+10_000)
    assert tab.transport.ticks_per_second == 1000


def test_the_heatmap_has_its_scale(qtbot, file_tab):
    tab, _, _ = file_tab
    tab.bar.show()
    tab.bar.heatmap.setChecked(True)
    assert tab.bar.heat_legend.isVisible()
    text = tab.bar.heat_legend.text()
    for count, (r, g, b, _) in enumerate(HEAT_RGBA[1:].tolist(), start=1):
        assert f"#{r:02X}{g:02X}{b:02X}" in text and f"&nbsp;{count}" in text
    assert f"{len(HEAT_RGBA) - 1}+" in text
