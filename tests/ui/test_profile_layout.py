"""The Profile tab's layout in the main window at 1366×768: choosing a compared run does not
widen the tab (nor squeeze the runs list), the callers and callees panes show their
columns whole; and at 1366×768 and 1600×1000 the Source view shows at least 15 lines, the
Lines view as many rows, and the flame graph keeps room for its frames."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from lattice_desktop.ui.profile.flame_graph import ROW
from tests.core.wat_cases import write_submission
from tests.ui.conftest import grade_into
from tests.ui.test_profile_lines import LINED, lined_submission

# Echoes its input after a loop in a function whose name is as long as real ones get.
LONG_NAMES = """
(module (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) i32.const 1024)
  (func $belt_contenders_of_every_line_end (param $n i32) (result i32) (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $i))
  (func (export "run") (param i32 i32) (result i64)
    (drop (call $belt_contenders_of_every_line_end (local.get 1)))
    (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.extend_i32_u (local.get 1)))))
"""


def _open_profiled(qtbot, window, run_id):
    window.open_run(run_id)
    qtbot.waitUntil(lambda: window.page is not None and window.page.run.id == run_id, timeout=10_000)
    tab = window.profile_tab
    window.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.profile is not None, timeout=60_000)
    return tab


def test_comparing_keeps_the_runs_list_and_the_panes_whole(
    qtbot, make_window, graded, db_path, toy_case, tmp_path
):
    folder = write_submission(tmp_path / "long", LONG_NAMES, model="model-with-a-long-name")
    (long_run,) = grade_into(db_path, toy_case.case_path, folder)
    window = make_window()
    window.resize(1366, 768)
    window.show()
    tab = _open_profiled(qtbot, window, long_run)
    QApplication.processEvents()
    runs_width = window.runs_panel.width()

    fuel_box = window.fuel_tab.compare_box
    qtbot.waitUntil(lambda: fuel_box.findData(graded["echo"]) >= 0, timeout=10_000)
    window.fuel_tab.compare_with(graded["echo"])
    qtbot.waitUntil(lambda: tab.other is not None, timeout=60_000)
    QApplication.processEvents()

    assert window.width() == 1366
    assert tab.minimumSizeHint().width() <= tab.width()
    assert window.runs_panel.width() == runs_width

    tab.select_function(next(f.index for f in tab.profile.functions if f.name == "run"))
    QApplication.processEvents()
    for view in (tab.callers_view, tab.callees_view):
        header = view.horizontalHeader()
        assert view.model().rowCount()
        for column in range(1, header.count()):  # the figures: never cut
            assert header.sectionSize(column) >= view.sizeHintForColumn(column)
            assert header.sectionSize(column) >= header.sectionSizeFromContents(column).width()
        assert header.length() <= view.viewport().width()

    window.grab().save(str(tmp_path / "profile_layout.png"))


def _rows_shown(view) -> int:
    """How many whole rows of a table fit in its viewport."""
    return view.viewport().height() // view.verticalHeader().defaultSectionSize()


@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_the_source_and_the_lines_get_room_at_common_window_sizes(
    qtbot, make_window, toy_case, db_path, tmp_path, size
):
    (run_id,) = grade_into(db_path, toy_case.case_path, lined_submission(tmp_path / "lined", LINED, "m"))
    window = make_window()
    window.resize(*size)
    window.show()
    tab = _open_profiled(qtbot, window, run_id)
    tab.views.setCurrentWidget(tab.lines_view)
    qtbot.waitUntil(lambda: bool(tab.source_view.model.rows) and not tab.source_view.loading, timeout=10_000)
    QApplication.processEvents()
    assert _rows_shown(tab.source_view.table) >= 15
    assert _rows_shown(tab.lines_view.table) >= 12
    graph = tab.flame.pages.currentWidget()
    assert graph.height() >= 6 * ROW  # the run's frames, a few levels deep, without scrolling
    assert tab.chart.height() <= graph.viewport().height()
    assert window.width() == size[0]
    window.grab().save(str(tmp_path / f"profile_{size[0]}.png"))
