"""A small factory fills the Factory pane: focusing a cell of a 3×4 smoke scenario fits the
whole grid to the view (it once zoomed to 40 cells across: ~11-17 px a cell in an 880 px
pane), while a big factory still zooms in on the focused cell."""

from __future__ import annotations

from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.ui.factory.canvas import FactoryCanvas

SMALL = "lattice 1\nsize 3 4\nticks 10\nsnapshot 5\ngrid\n...\n...\n...\n...\n"
PANE = 880


def pixels_per_cell(canvas: FactoryCanvas) -> tuple[float, float]:
    view = canvas.visible_cells()
    return canvas.box.width() / view.width(), canvas.box.height() / view.height()


def shown_canvas(qtbot) -> FactoryCanvas:
    canvas = FactoryCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(PANE, PANE)
    canvas.show()
    qtbot.waitExposed(canvas)
    return canvas


def test_a_3x4_factory_is_fitted_to_the_pane_when_a_cell_is_focused(qtbot):
    canvas = shown_canvas(qtbot)
    canvas.set_scenario(parse_scenario(SMALL, source="small.lat"))
    canvas.focus_cell(1 * 3 + 2, span=40.0)  # the cell (2, 1)
    qtbot.wait(20)
    across, down = pixels_per_cell(canvas)
    assert min(across, down) >= PANE / 4 * 0.8  # the 4 rows fill the pane's height
    view = canvas.visible_cells()
    assert view.left() <= 0 and view.top() <= 0 and view.right() >= 3 and view.bottom() >= 4  # all of it


def test_a_big_factory_still_zooms_to_the_focused_cell(qtbot):
    canvas = shown_canvas(qtbot)
    canvas.set_scenario(
        parse_scenario(generate(3, width=200, height=200, ticks=20, snapshot=10), source="big.lat")
    )
    canvas.focus_cell(100 * 200 + 100, span=40.0)
    qtbot.wait(20)
    view = canvas.visible_cells()
    assert 30 <= view.width() <= 50 and view.contains(100.5, 100.5)
