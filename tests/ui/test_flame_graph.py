"""The flame graph on real profiles (wasm run by wasmtime), as real widgets offscreen: a click
zooms into a frame and the breadcrumb leads back, dragging and the arrow keys pan, a search
highlights its matches and sums their share, the sandwich merges a function's callers and
callees, tooltips hold the exact figures, labels are cut only when a frame is too narrow,
and a compared run is drawn on the same scale, coloured by the change."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from lattice_desktop.profile.flame import widths_by_path
from lattice_desktop.ui.profile.flame_graph import LESS, MORE, change_colour, change_mark, fitted_label
from lattice_desktop.ui.profile.flame_panel import FlamePanel
from tests.profile.test_flame import LIGHTER, SHARED
from tests.profile.wat_profile import profile_and_count


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    assert LIGHTER != SHARED
    heavy = profile_and_count(tmp_path_factory.mktemp("heavy"), SHARED)[0]
    light = profile_and_count(tmp_path_factory.mktemp("light"), LIGHTER)[0]
    return heavy, light


@pytest.fixture
def panel(qtbot, profiles):
    widget = FlamePanel()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    widget.set_profiles(profiles[0], None)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _centre(chart, name):
    bar = next(b for b in chart.bars if b.name == name)
    return bar, chart.rect_of(bar).center().toPoint()


def test_click_zooms_and_the_breadcrumb_leads_back(qtbot, panel, profiles, tmp_path):
    chart = panel.chart
    bar, point = _centre(chart, "shared")
    with qtbot.waitSignal(panel.function_chosen) as chosen:
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=point)
    assert chosen.args == [bar.index]
    assert chart.view == (bar.start, bar.end)
    assert chart.rect_of(bar).width() == pytest.approx(chart.width() - 1)
    assert "All" in panel.breadcrumb.text() and "shared" in panel.breadcrumb.text()
    assert [c.name for c in panel.crumbs] == list(bar.path)
    panel._crumb("0")  # the first crumb: the root frame
    assert chart.zoomed is not None and chart.zoomed.path == bar.path[:1]
    panel._crumb("all")
    assert chart.view == (0.0, chart.scale) and panel.crumbs == []
    assert panel.grab().save(str(tmp_path / "flame_zoomed.png"))  # it paints


def test_drag_and_keys_pan_and_zoom(qtbot, panel):
    chart = panel.chart
    chart.zoom_by(4)
    start, end = chart.view
    assert end - start == pytest.approx(chart.scale / 4)
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    assert chart.view[0] > start
    moved = chart.view
    y = 5
    qtbot.mousePress(chart, Qt.MouseButton.LeftButton, pos=QPoint(400, y))
    qtbot.mouseMove(chart, QPoint(300, y))
    qtbot.mouseRelease(chart, Qt.MouseButton.LeftButton, pos=QPoint(300, y))
    assert chart.view[0] > moved[0]  # dragged left: later fuel comes into view
    assert chart.view[1] - chart.view[0] == pytest.approx(moved[1] - moved[0])
    qtbot.keyClick(chart, Qt.Key.Key_0)
    assert chart.view == (0.0, chart.scale)


def test_search_highlights_and_sums_the_share(qtbot, panel, profiles, tmp_path):
    heavy = profiles[0]
    panel.search_box.setText("SHARED")
    shared = next(f for f in heavy.functions if f.name == "shared")
    assert panel.chart.found == frozenset({shared.index})
    assert f"{100 * shared.inclusive / heavy.total:.1f}%" in panel.found.text()
    assert panel.grab().save(str(tmp_path / "flame_search.png"))  # it paints
    panel.search_box.clear()
    assert not panel.chart.searching and panel.found.text() == ""


def test_the_sandwich_shows_the_selected_functions_callers_and_callees(qtbot, panel, profiles, tmp_path):
    heavy = profiles[0]
    shared = next(f for f in heavy.functions if f.name == "shared")
    panel.select(shared.index)
    panel.sandwich_button.setChecked(True)
    assert panel.pages.currentIndex() == 1
    callers = {b.name for b in panel.callers_chart.bars if b.depth == 1}
    assert callers == {heavy.name_of(e.caller) for e in heavy.callers(shared.index)}
    assert [b.name for b in panel.callees_chart.bars if b.depth == 1] == ["leaf"]
    # callers are drawn upside down: the function at the bottom row
    root = next(b for b in panel.callers_chart.bars if b.depth == 0)
    assert (
        panel.callers_chart.rect_of(root).top()
        > panel.callers_chart.rect_of(next(b for b in panel.callers_chart.bars if b.depth == 1)).top()
    )
    QApplication.processEvents()
    assert panel.grab().save(str(tmp_path / "flame_sandwich.png"))  # it paints


def test_tooltips_hold_the_exact_figures(panel):
    bar = next(b for b in panel.chart.bars if b.name == "leaf")
    tip = panel.chart.tooltip_of(bar)
    assert f"{round(bar.width):,} fuel" in tip and "apportioned" in tip and "a › shared › leaf" in tip


def test_labels_are_cut_only_when_the_name_does_not_fit(panel):
    metrics = panel.chart.fontMetrics()
    name = "engine_tick"
    whole = metrics.horizontalAdvance(name)
    assert fitted_label(name, "1.2 G fuel", whole + 200, metrics) == f"{name} · 1.2 G fuel"
    assert fitted_label(name, "1.2 G fuel", whole, metrics) == name
    cut = fitted_label(name, "1.2 G fuel", whole - 1, metrics)
    assert cut.endswith("…") and len(cut) > 3
    assert fitted_label(name, "1.2 G fuel", 3, metrics) == ""


def test_the_compared_run_is_drawn_on_one_scale_and_coloured_by_change(qtbot, panel, profiles, tmp_path):
    heavy, light = profiles
    panel.set_profiles(heavy, light)
    assert panel.other_chart.isVisible()
    assert panel.chart.scale == panel.other_chart.scale == max(heavy.total, light.total)
    ours = next(b for b in panel.chart.bars if b.depth == 0)
    theirs = next(b for b in panel.other_chart.bars if b.depth == 0)
    assert panel.other_chart.rect_of(theirs).width() < panel.chart.rect_of(ours).width()
    a_ours = next(b for b in panel.chart.bars if b.name == "a")
    a_theirs = widths_by_path(panel.other_chart.bars)[a_ours.path]
    assert a_ours.width > a_theirs
    assert change_mark(a_ours.width, a_theirs) == "▲ "
    assert change_colour(a_ours.width, a_theirs).name() == MORE.name()  # more than 50% more
    a_there = next(b for b in panel.other_chart.bars if b.name == "a")
    assert change_mark(a_there.width, widths_by_path(panel.chart.bars)[a_there.path]) == "▼ "
    assert change_colour(a_there.width, widths_by_path(panel.chart.bars)[a_there.path]).name() == LESS.name()
    assert "compared run:" in panel.chart.tooltip_of(a_ours)
    # zooming into a frame zooms the compared graph to the same frame, keeping the scale
    panel.zoom_into(a_ours)
    start, end = panel.other_chart.view
    assert start == a_there.start and end - start == pytest.approx(a_ours.width)
    QApplication.processEvents()
    assert panel.grab().save(str(tmp_path / "flame_compared.png"))  # it paints
