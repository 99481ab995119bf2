"""The Profile tab's Lines view on a real graded run profiled with DWARF lines: its top row is
the case's hottest line (here in a function with less self fuel than another), selecting a row
(by click or key) opens the Source view on that line, the arrow keys in the Source view update
the share under it, a compared run's figures sit beside the lines both copies share, and a run
without line information says so."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtTest import QTest

from lattice_desktop.profile.model import FunctionStats, LineStats, Profile
from lattice_desktop.ui.common.delegates import SORT_ROLE
from lattice_desktop.ui.profile.lines_view import NO_LINES, LinesView
from lattice_desktop.ui.profile.models import INDEX_ROLE
from lattice_desktop.ui.profile.source_view import SourceView
from tests.profile.lines_profile import line_of, wasm_with_lines
from tests.ui.conftest import grade_into

# `spread` burns the most fuel, on many lines; `hot` less, but on one line that holds more
# than any of `spread`'s: the case's hottest line is not in its costliest function.
LINED = """(module (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) i32.const 1024)
  (func $spread (param $n i32) (result i32) (local $i i32) (local $a i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))  ;; spread.a
      (local.set $a (i32.xor (local.get $a) (i32.const 5)))  ;; spread.b
      (local.set $a (i32.rotl (local.get $a) (i32.const 3)))  ;; spread.c
      (local.set $a (i32.sub (local.get $a) (i32.const 7)))  ;; spread.d
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $a))
  (func $hot (param $n i32) (result i32) (local $i i32) (local $a i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $a (i32.add (i32.mul (i32.add (local.get $a) (local.get $i)) (i32.const 31)) (i32.xor (local.get $a) (i32.shr_u (local.get $a) (i32.const 3)))))  ;; hot.line
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $a))
  (func (export "run") (param $p i32) (param $n i32) (result i64)
    (drop (call $spread (local.get $n)))
    (drop (call $hot (local.get $n)))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $p)) (i64.const 32)) (i64.extend_i32_u (local.get $n)))))
"""
HOT_LINE = line_of(LINED, ";; hot.line")


def lined_submission(folder: Path, wat: str, model: str) -> Path:
    """A submission whose module carries a line table pointing into its own `t.wat`."""
    wasm_with_lines(folder, wat)
    (folder / "submission.toml").write_text(f'[submission]\nmodel = "{model}"\n[build]\nmodule = "t.wasm"\n')
    return folder


def _profiled(qtbot, window, run_id):
    window.open_run(run_id)
    qtbot.waitUntil(lambda: window.page is not None and window.page.run.id == run_id, timeout=10_000)
    tab = window.profile_tab
    window.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.profile is not None, timeout=60_000)
    return tab


def _source_settled(qtbot, tab, function: int, line: int) -> None:
    """The Source view on `function`, its source read, line `line` current."""
    view = tab.source_view

    def there() -> bool:
        current = view.table.currentIndex()
        return (
            view.index == function
            and not view.loading
            and current.isValid()
            and view.model.rows[current.row()].number == line
        )

    qtbot.waitUntil(there, timeout=10_000)


def test_the_top_row_is_the_hottest_line_and_selecting_rows_opens_the_source(
    qtbot, make_window, toy_case, db_path, tmp_path
):
    (run_id,) = grade_into(db_path, toy_case.case_path, lined_submission(tmp_path / "lined", LINED, "m-l"))
    window = make_window()
    window.resize(1366, 768)
    window.show()
    tab = _profiled(qtbot, window, run_id)
    profile = tab.profile
    assert profile.line_table and profile.total == profile.graded_fuel

    # The hottest line, computed from the core profile alone: fuel per file:line over functions.
    per_line = Counter()
    for s in profile.lines:
        per_line[(s.file, s.line)] += s.fuel
    (file, line), hottest = per_line.most_common(1)[0]
    assert (file, line) == ("t.wat", HOT_LINE)
    hot = next(f.index for f in profile.functions if f.name == "hot")
    assert profile.ranked()[0].name == "spread"  # not where the hottest line is
    assert f"hottest line: t.wat:{HOT_LINE}" in tab.summary.text()

    lines = tab.lines_view
    tab.views.setCurrentWidget(lines)  # as clicking the Lines tab does
    top = lines.sorted.index(0, 0)
    assert top.data() == f"t.wat:{HOT_LINE}"
    assert (
        lines.sorted.index(0, 1)
        .data(Qt.ItemDataRole.ToolTipRole)
        .startswith(f"t.wat:{HOT_LINE}: {hottest:,}")
    )
    assert lines.table.currentIndex().row() == 0  # opening the view went to its top row
    _source_settled(qtbot, tab, hot, HOT_LINE)
    assert tab.table.currentIndex().data(INDEX_ROLE) == hot  # its function, selected in the table
    source = tab.source_view
    current = source.table.currentIndex()
    assert source.table.viewport().rect().contains(source.table.visualRect(current).center())
    assert source.detail.text().startswith(f"line {HOT_LINE}: {hottest:,} fuel")
    assert f"{profile.percent(hottest):.2f}% of the case" in source.detail.text()

    # ↓ in the Lines view: the second hottest line, in its own function.
    QTest.keyClick(lines.table, Qt.Key.Key_Down)
    second = lines.model.rows[lines.sorted.mapToSource(lines.table.currentIndex()).row()]
    assert second.fuel == per_line.most_common(2)[1][1]
    _source_settled(qtbot, tab, second.functions[0].function, second.line)

    # ↑/↓ in the Source view: the share under it follows the current line.
    source.table.setFocus()
    before = source.detail.text()
    row = source.table.currentIndex().row()
    QTest.keyClick(source.table, Qt.Key.Key_Up)
    moved = source.model.rows[row - 1]
    assert source.table.currentIndex().row() == row - 1
    assert source.detail.text() != before
    assert source.detail.text().startswith(f"line {moved.number}:")
    window.grab().save(str(tmp_path / "profile_lines.png"))


def test_a_compared_runs_figures_sit_beside_the_lines_both_copies_share(
    qtbot, make_window, toy_case, db_path, tmp_path
):
    # The compared run's copy has a line added at the top and spread.b changed: its lines move
    # down by one, and spread.b is no longer the same line.
    edited = LINED.replace("(module", ";; a line added\n(module", 1).replace("(i32.const 5)", "(i32.const 6)")
    ours, theirs = grade_into(
        db_path,
        toy_case.case_path,
        lined_submission(tmp_path / "lined", LINED, "m-l"),
        lined_submission(tmp_path / "edited", edited, "m-e"),
    )
    window = make_window()
    window.show()
    tab = _profiled(qtbot, window, ours)
    fuel_box = window.fuel_tab.compare_box
    qtbot.waitUntil(lambda: fuel_box.findData(theirs) >= 0, timeout=10_000)
    window.fuel_tab.compare_with(theirs)
    qtbot.waitUntil(lambda: tab.other is not None, timeout=60_000)
    lines = tab.lines_view
    qtbot.waitUntil(lambda: "Compared" in lines.model.columns, timeout=10_000)
    rows = {r.place: r for r in lines.model.rows}
    hot = rows[f"t.wat:{HOT_LINE}"]
    assert (hot.other_line, hot.other, hot.delta) == (HOT_LINE + 1, hot.fuel, 0)
    changed = line_of(LINED, ";; spread.b")
    assert rows[f"t.wat:{changed}"].other is None  # its text changed: not compared
    assert rows[f"✚ t.wat:{changed + 1}"].other == rows[f"t.wat:{changed}"].fuel  # theirs alone
    delta = lines.model.columns.index("Δ")
    shown = {lines.model.index(n, 0).data(): lines.model.index(n, delta).data() for n in range(len(rows))}
    assert shown[f"t.wat:{changed}"] == "-" and shown[f"t.wat:{HOT_LINE}"] == "±0 fuel"


def test_a_run_without_line_information_says_so(qtbot, window, graded):
    window.show()
    tab = _profiled(qtbot, window, graded["bytewise"])
    assert not tab.profile.line_table
    tab.views.setCurrentWidget(tab.lines_view)
    assert tab.lines_view.note.text() == NO_LINES
    assert "-g" in NO_LINES
    assert not tab.lines_view.table.isVisible() and tab.lines_view.model.rowCount() == 0
    assert "hottest line" not in tab.summary.text()


def _two_files() -> Profile:
    """`f` and `g` both run a.c:3 (an inlined helper), `f` also b.h:2."""
    lines = (LineStats(0, "a.c", 3, 10), LineStats(1, "a.c", 3, 30), LineStats(0, "b.h", 2, 4))
    functions = (FunctionStats(0, "f", 1, 14, 14), FunctionStats(1, "g", 1, 30, 30))
    return Profile(
        "sha", "big", "hash", 44, functions, (), 44, None, "returned", line_table=True, lines=lines
    )  # fmt: skip


def test_the_file_filter_and_a_line_in_two_functions(qtbot):
    view = LinesView()
    qtbot.addWidget(view)
    view.show_profile(_two_files(), None, None, None)
    assert [view.sorted.index(n, 0).data() for n in range(view.sorted.rowCount())] == ["a.c:3", "b.h:2"]
    assert view.sorted.index(0, 1).data(SORT_ROLE) == 40
    assert view.sorted.index(0, 3).data() == "g, f"  # most of the line's fuel first
    assert "g: 30 (75.0%)" in view.sorted.index(0, 3).data(Qt.ItemDataRole.ToolTipRole)
    box = view.file_box
    box.setCurrentIndex(box.findData("b.h"))
    box.activated.emit(box.currentIndex())
    assert [view.sorted.index(n, 0).data() for n in range(view.sorted.rowCount())] == ["b.h:2"]
    assert view.note.text() == "1 line of b.h · the hottest: b.h:2, 9.09% of the case"
    with qtbot.waitSignal(view.line_chosen) as chosen:
        view.table.selectRow(0)
    assert chosen.args == [0, "b.h", 2]


def test_the_source_view_goes_to_a_line_in_another_file_and_sums_it_over_functions(qtbot):
    view = SourceView()
    qtbot.addWidget(view)
    view.show_function(_two_files(), 0, None, None, None)
    view.show_line("b.h", 2)
    view._loaded(({"a.c": "1\n2\n3\n4\n", "b.h": "x\ny\nz\n"}, {}))  # as read from the folder
    assert view.file_box.currentData() == "b.h"
    assert view.model.rows[view.table.currentIndex().row()].number == 2
    assert view.detail.text().startswith("line 2: 4 fuel")
    view.show_line("a.c", 3)
    assert view.file_box.currentData() == "a.c"
    assert view.detail.text().startswith("line 3: 10 fuel · 71.4% of f")
    assert view.detail.text().endswith("40 in all 2 functions it is compiled into")
    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
    view.table.selectionModel().setCurrentIndex(view.model.index(0, 0), flags)
    assert view.detail.text().startswith("line 1: no fuel")
