"""The Factory tab on a divergence at scale: `scale_bug` graded on stress-384 opens on the
first differing cell, finds the first wrong tick, and keeps the diff list, the map and the
minimap in step. stress-384 is the smaller of the two stress cases scale_bug fails: the same
departure at tick 256 (a line's 256th item) and a map far too wide to outline, at about half
the cost of stress-512, whose tab benchmarks/divergence.py opens and whose departure
tests/lattice/test_divergence.py and test_scale_bug.py check in the core."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt, QThreadPool

from benchmarks.divergence import trimmed_case
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest.case import load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory import palette as pal
from lattice_desktop.ui.factory.tab import FactoryTab
from tests.core.wat_cases import write_submission

LATTICE = CASES / "lattice"
SCALE = "stress-384"
SUBMISSIONS = LATTICE / "submissions"
pytestmark = [
    pytest.mark.skipif(
        not (SUBMISSIONS / "scale_bug" / "engine.wasm").is_file(),
        reason="the bundled sample engines are not built",
    ),
]

# Right shape, wrong answer, and no lattice_records export: only snapshots can be compared.
NO_RECORDS = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func (export "lattice_run") (param i32 i32) (result i64) i64.const 8))
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The trimmed case (one smoke test, stress-384) and a database with the
    scale_bug run and a run of a submission without records."""
    root = tmp_path_factory.mktemp("divergence")
    before = os.environ.get("LATTICE_DESKTOP_CACHE")
    os.environ["LATTICE_DESKTOP_CACHE"] = str(root / "cache")
    case = load_case(trimmed_case(root / "case", stress=SCALE))
    writer = Writer(open_database(root / "runs.db"))
    scale_bug = grade_and_store(case, load_submission(SUBMISSIONS / "scale_bug"), writer=writer)
    bare = grade_and_store(case, load_submission(write_submission(root / "bare", NO_RECORDS)), writer=writer)
    writer.close()
    yield case, load_run(scale_bug.run_id), load_run(bare.run_id)
    if before is None:
        os.environ.pop("LATTICE_DESKTOP_CACHE", None)
    else:
        os.environ["LATTICE_DESKTOP_CACHE"] = before


@pytest.fixture
def tab(qtbot, graded):
    case, run, _ = graded
    widget = FactoryTab()
    qtbot.addWidget(widget)
    widget.resize(1200, 760)
    widget.show()
    widget.show_run(run, case)
    yield widget
    widget.shutdown()
    QThreadPool.globalInstance().waitForDone(30000)


def centred_cell(tab: FactoryTab) -> tuple[int, int]:
    (left, right), (top, bottom) = tab.canvas.box.viewRange()
    return int((left + right) / 2), int((top + bottom) / 2)


def selected_cells(tab: FactoryTab) -> set[int]:
    return tab.diff_list.selected_cells()


def assert_focused(tab: FactoryTab, cell: int) -> None:
    """The cell is ringed, marked, its records selected, and centred as far as the grid allows."""
    width, height = tab.playback.scenario.width, tab.playback.scenario.height
    x, y = cell % width, cell // width
    (left, right), (top, bottom) = tab.canvas.box.viewRange()
    assert left <= x < right and top <= y < bottom
    for low, high, at, size in ((left, right, x, width), (top, bottom, y, height)):
        half = (high - low) / 2
        assert abs((low + high) / 2 - min(max(at + 0.5, half), size - half)) < 0.6
    assert tab.canvas.focus.isVisible() and tab.canvas.focus.rect().contains(QPointF(x + 0.5, y + 0.5))
    assert tab.canvas.counts[y, x] > 0  # marked
    assert selected_cells(tab) == {cell}


@pytest.mark.slow
def test_opens_on_the_first_differing_cell_then_finds_the_first_wrong_tick(qtbot, tab, graded):
    case, run, _ = graded
    wrong = next(r for r in run.results if r.mismatch is not None)
    assert wrong.name == SCALE
    assert tab.case_box.currentData() == wrong.name
    qtbot.waitUntil(lambda: tab.cell_index == 0 and tab.navigator.diff_tick is not None, timeout=60000)
    assert tab.modes.mode == "Diff"
    assert "lines (proven on this scenario)" in tab.engine_label.text()  # the fastest proven engine
    assert tab.navigator.diff_tick in (wrong.mismatch.tick, getattr(tab.divergence, "tick", None))
    assert_focused(tab, tab.cells[0])
    assert tab.cells == sorted(tab.navigator.marked)
    overview = tab.minimap._pixels
    assert tab.minimap.isVisible() and (overview[..., :3] == pal.MARK_RGBA[:3]).all(axis=-1).any()

    qtbot.waitUntil(lambda: tab.divergence is not None, timeout=60000)
    found = tab.divergence
    qtbot.waitUntil(lambda: tab.navigator.diff_tick == found.tick and tab.cell_index == 0, timeout=60000)
    assert tab.tick == found.tick and tab.transport.timeline.first_wrong == found.tick
    assert_focused(tab, found.cells[0])
    assert set(tab.cells) == set(found.cells)
    data = case.entry(wrong.name).input_bytes()
    # Against `lines`, proven equal to the reference on this scenario (the label above) and
    # seven times as fast; tests/lattice/test_divergence.py checks tick 255 against the reference.
    lines, scale_bug = (WasmEngine(SUBMISSIONS / n / "engine.wasm") for n in ("lines", "scale_bug"))
    assert lines.records(data, found.tick - 1) == scale_bug.records(data, found.tick - 1)
    assert lines.records(data, found.tick) != scale_bug.records(data, found.tick)
    assert f"{found.tick:,}" in tab.bar.status.text()
    assert tab.bar.minimumSizeHint().width() < 800  # the news wraps; it never widens the window


@pytest.mark.slow
def test_navigation_keeps_the_list_and_the_map_in_step(qtbot, tab):
    qtbot.waitUntil(
        lambda: (
            tab.divergence is not None
            and tab.navigator.diff_tick == tab.divergence.tick
            and tab.cell_index == 0
        ),
        timeout=90000,
    )
    tab.bar.next_cell.click()
    assert tab.cell_index == 1
    assert_focused(tab, tab.cells[1])
    tab.bar.previous_cell.click()
    tab.bar.previous_cell.click()  # wraps to the last
    assert tab.cell_index == len(tab.cells) - 1
    tab.setFocus()
    qtbot.keyClick(tab, Qt.Key.Key_N)  # the keys do the same
    assert tab.cell_index == 0
    qtbot.keyClick(tab, Qt.Key.Key_N)
    assert tab.cell_index == 1
    qtbot.keyClick(tab, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    assert tab.cell_index == 0
    assert_focused(tab, tab.cells[0])

    # Choosing a record in the list centres its cell.
    row = tab.diff_list.model.rows_of(tab.cells[2])[0]
    tab.diff_list.view.setCurrentIndex(tab.diff_list.model.index(row, 1))
    assert tab.cell_index == 2
    assert_focused(tab, tab.cells[2])

    # Clicking a marked cell selects its records (and keeps the view).
    target = tab.cells[3]
    width = tab.playback.scenario.width
    view = tab.canvas.box.viewRange()
    scene = tab.canvas.box.mapViewToScene(QPointF(target % width + 0.5, target // width + 0.5))
    qtbot.mouseClick(tab.canvas.viewport(), Qt.MouseButton.LeftButton, pos=tab.canvas.mapFromScene(scene))
    qtbot.waitUntil(lambda: tab.cell_index == 3, timeout=5000)
    assert selected_cells(tab) == {target} and tab.canvas.box.viewRange() == view

    # The heatmap colours cells by how many records differ and dims the rest.
    plain = tab.canvas.marks.image.copy()
    tab.setFocus()
    qtbot.keyClick(tab, Qt.Key.Key_H)
    assert tab.bar.heatmap.isChecked()
    heat = tab.canvas.marks.image
    assert not np.array_equal(plain, heat) and heat[0, 0, 3] > 0 and plain[0, 0, 3] == 0

    # The minimap moves the map.
    tab.minimap.centre.emit(100.0, 300.0)
    assert centred_cell(tab) == (100, 300)

    # Next divergent snapshot: the one after the first wrong tick, again at its first differing cell.
    wrong = [tab.snapshots.tick(int(r)) for r in np.nonzero(tab.snapshots.status() == 0)[0]]
    target = next(t for t in wrong if t > tab.tick)
    tab.bar.next_snapshot.click()
    qtbot.waitUntil(lambda: tab.navigator.diff_tick == target and tab.cell_index == 0, timeout=90000)
    assert_focused(tab, tab.cells[0])


@pytest.mark.slow
def test_a_focused_cell_stays_focused_while_it_differs_and_the_ring_goes_when_none_is(qtbot, tab):
    qtbot.waitUntil(
        lambda: tab.divergence is not None and tab.navigator.diff_tick == tab.divergence.tick, timeout=90000
    )
    tab.navigator.step_cell(+1)
    focused = tab.cells[tab.cell_index]
    tab.step_ticks(+1)  # a lost item stays lost: the cell still differs one tick on
    qtbot.waitUntil(lambda: tab.navigator.diff_tick == tab.divergence.tick + 1, timeout=30000)
    assert tab.cells[tab.cell_index] == focused
    assert_focused_in_place(tab, focused)
    tab.navigator.focus_cell(0, zoom=False)
    tab.navigator.cell_index = None  # nothing focused (as after choosing a snapshot row)
    tab.step_ticks(-1)
    qtbot.waitUntil(lambda: tab.navigator.diff_tick == tab.divergence.tick, timeout=30000)
    assert tab.cell_index is None and not tab.canvas.focus.isVisible()


@pytest.mark.slow
def test_only_the_marked_cells_in_view_are_outlined(qtbot, tab):
    qtbot.waitUntil(lambda: tab.cell_index == 0, timeout=90000)
    outlined = tab.canvas.outlines.path().boundingRect()
    assert not outlined.isEmpty() and tab.canvas.visible_cells().adjusted(-1, -1, 1, 1).contains(outlined)
    tab.canvas.fit()  # 384 cells across: too small to outline, the tint marks them
    assert tab.canvas.outlines.path().isEmpty() and tab.canvas.counts.any()
    tab.navigator.focus_cell(0, zoom=True)
    assert not tab.canvas.outlines.path().isEmpty()


def assert_focused_in_place(tab: FactoryTab, cell: int) -> None:
    x, y = cell % tab.playback.scenario.width, cell // tab.playback.scenario.width
    assert tab.canvas.focus.isVisible() and tab.canvas.focus.rect().contains(QPointF(x + 0.5, y + 0.5))
    assert selected_cells(tab) == {cell}


def test_without_records_the_tab_says_it_can_only_show_snapshots(qtbot, graded):
    case, _, bare = graded
    widget = FactoryTab()
    qtbot.addWidget(widget)
    widget.show()
    widget.show_run(bare, case)
    qtbot.waitUntil(
        lambda: "Only snapshots" in widget.bar.status.text() and widget.bar.isVisible(), timeout=30000
    )
    assert "lattice_records" in widget.bar.status.text()
    assert widget.bar.isVisible() and widget.modes.mode == "Reference"
    assert not widget.modes.buttons["Diff"].isEnabled() and widget.divergence is None
    widget.shutdown()
    QThreadPool.globalInstance().waitForDone(10000)


def test_the_overview_keeps_a_lone_difference_visible():
    from lattice_desktop.ui.factory.minimap import MIN_MARK, overview

    entity = np.full((512, 512), 2, np.uint8)
    counts = np.zeros((512, 512), np.int32)
    counts[300, 77] = 1
    image = overview(entity, counts, side=120)
    assert image.shape[:2] == (120, 120)
    red = (image[..., :3] == pal.MARK_RGBA[:3]).all(axis=-1)
    ys, xs = np.nonzero(red)
    assert red.sum() >= MIN_MARK * MIN_MARK
    assert abs(ys.mean() - 300 * 120 / 512) <= 2 and abs(xs.mean() - 77 * 120 / 512) <= 2
    assert not (overview(entity, None, side=120)[..., :3] == pal.MARK_RGBA[:3]).all(axis=-1).any()
