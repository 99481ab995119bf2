"""The Source view: a function's lines with their fuel, the hottest marked, a click giving
a line's share, and a compared run's figures beside the lines both sources share."""

from __future__ import annotations

from lattice_desktop.profile.line_match import matched_lines
from lattice_desktop.ui.profile.source_view import SourceView
from tests.profile.lines_profile import line_of, profile_with_lines
from tests.profile.test_source_lines import COUNTED, LOOPS


def test_matched_lines_pair_only_the_text_both_versions_share():
    ours = "a\nb\nc\nd\n"
    theirs = "a\nx\nb\nd\n"
    assert matched_lines(ours, theirs) == {1: 1, 2: 3, 4: 4}


def test_the_source_view_shows_fuel_per_line_and_a_lines_share(qtbot, tmp_path):
    profile, _ = profile_with_lines(tmp_path, COUNTED)
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(700, 360)
    run = next(f.index for f in profile.functions if f.name == "run")
    view.show_function(profile, run, profile, None, None)
    qtbot.waitUntil(lambda: "reading" not in view.title.text())
    edited = COUNTED.replace("local.set 2  ;; body.set", "local.set 2  ;; body.set (edited)")
    view._loaded(({"t.wat": COUNTED}, {"t.wat": edited}))  # as read from the two submissions
    rows = {row.number: row for row in view.model.rows}
    fill = line_of(COUNTED, ";; fill")
    assert rows[fill].fuel == sum(s.fuel for s in profile.lines_of(run) if s.line == fill)
    assert rows[fill].hot  # the costliest line of `run`: 1 + one unit per byte filled
    assert rows[fill].other == rows[fill].fuel  # the compared run is the same module
    assert rows[line_of(COUNTED, ";; body.set")].other is None  # that line's text changed
    assert rows[line_of(COUNTED, ";; body.get")].fuel == LOOPS
    row = [r.number for r in view.model.rows].index(fill)
    view.table.setCurrentIndex(view.model.index(row, 0))  # clicked, or reached by key
    own = sum(s.fuel for s in profile.lines_of(run))
    assert f"{100 * rows[fill].fuel / own:.1f}% of run" in view.detail.text()
    assert view.model.headers()[1] == "Compared"
    view.grab().save(str(tmp_path / "source_view.png"))


def test_without_lines_the_view_says_how_to_get_them(qtbot, tmp_path):
    from tests.profile.control_flow import CONTROL_FLOW
    from tests.profile.wat_profile import profile_and_count

    profile, _ = profile_and_count(tmp_path, CONTROL_FLOW, "x")
    view = SourceView()
    qtbot.addWidget(view)
    view.show_function(profile, profile.ranked()[0].index, None, None, None)
    assert "no DWARF line info" in view.title.text() and view.model.rowCount() == 0


def test_a_long_source_line_scrolls_sideways_instead_of_being_cut(qtbot, tmp_path):
    profile, _ = profile_with_lines(tmp_path, COUNTED)
    view = SourceView()
    qtbot.addWidget(view)
    view.resize(420, 300)
    view.show()
    run = next(f.index for f in profile.functions if f.name == "run")
    view.show_function(profile, run, None, None, None)
    qtbot.waitUntil(lambda: "reading" not in view.title.text())
    fill = line_of(COUNTED, ";; fill")
    long = COUNTED.replace(";; fill", ";; fill " + "x" * 300)
    view._loaded(({"t.wat": long}, {}))
    view.resize(380, 300)  # made narrower once the lines are in
    qtbot.wait(50)
    source = view.model.columnCount() - 1
    text = next(r.text for r in view.model.rows if r.number == fill)
    width = view.table.horizontalHeader().sectionSize(source)
    assert width >= view.table.fontMetrics().horizontalAdvance(text)  # the whole line fits its column
    qtbot.waitUntil(lambda: view.table.horizontalScrollBar().maximum() > 0)  # and the view scrolls to it
    view.resize(3000, 300)  # a wide window: the column fills the room left
    qtbot.waitUntil(lambda: view.table.horizontalScrollBar().maximum() == 0)
    assert view.table.horizontalHeader().sectionSize(source) >= width
