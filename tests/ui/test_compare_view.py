"""The Compare view, opened from the runs list's context menu on a real database: the open
run is A, the clicked run B; its cases show each run's graded fuel and the change, and the
changed case lists the functions behind it, from profiles made off the GUI thread."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from lattice_desktop.store.queries import load_run
from lattice_desktop.ui.profile.compare_view import CompareDialog


def test_compare_two_runs_from_the_context_menu(qtbot, graded, window, tmp_path):
    window.show()
    window.open_run(graded["bytewise"])
    qtbot.waitUntil(
        lambda: window.page is not None and window.page.run.id == graded["bytewise"], timeout=10_000
    )
    echo = next(s for s in window.runs_panel.model.summaries if s.id == graded["echo"])
    menu = window.run_actions.menu_for(echo)
    action = next(a for a in menu.actions() if a.text().startswith("Compare with the open run"))
    assert f"#{graded['bytewise']}" in action.text()
    action.trigger()
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, CompareDialog))
    qtbot.waitUntil(lambda: dialog.comparison is not None, timeout=60_000)

    before, after = load_run(graded["bytewise"]), load_run(graded["echo"])
    rows = {c.name: c for c in dialog.cases.rows}
    for result in before.results:
        theirs = next(r for r in after.results if r.name == result.name)
        assert (rows[result.name].before_fuel, rows[result.name].after_fuel) == (result.fuel, theirs.fuel)
    big = rows["big"]
    assert big.delta is not None and big.delta < 0
    dialog.cases_view.selectRow(list(rows).index("big"))
    assert dialog.changes.rowCount() and sum(f.delta for f in dialog.changes.rows) == big.delta
    assert dialog.cases.index(list(rows).index("big"), 4).data() == f"{big.percent:+.2f}%"
    QApplication.processEvents()
    assert dialog.grab().save(str(tmp_path / "compare_view.png"))  # it paints
    dialog.reject()


def test_no_compare_item_on_the_open_run_itself(qtbot, graded, window):
    window.open_run(graded["echo"])
    qtbot.waitUntil(lambda: window.page is not None and window.page.run.id == graded["echo"], timeout=10_000)
    echo = next(s for s in window.runs_panel.model.summaries if s.id == graded["echo"])
    texts = [a.text() for a in window.run_actions.menu_for(echo).actions()]
    assert texts and not any(t.startswith("Compare") for t in texts)


def test_the_selected_function_shows_the_lines_behind_its_change(qtbot, db_path, tmp_path):
    # Two runs of a C module built with -g: the dialog lists, under the function behind the
    # change, its source lines, whose changes add up to the function's.
    from tests.core.wat_cases import write_case
    from tests.profile.test_compare_lines import AFTER, BEFORE, CASES, c_submission

    from .conftest import grade_into

    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    folders = [c_submission(tmp_path / n, s, f"model-{n}") for n, s in (("a", BEFORE), ("b", AFTER))]
    before, after = grade_into(db_path, case, *folders)
    dialog = CompareDialog(before, after, writer=None)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.comparison is not None, timeout=60_000)
    names = [c.name for c in dialog.cases.rows]
    dialog.cases_view.selectRow(names.index("long"))
    function = dialog.changes.rows[0]
    assert dialog.lines.rows == list(function.lines) and function.lines
    assert sum(ln.delta for ln in dialog.lines.rows) == function.delta
    places = [dialog.lines.index(r, 0).data() for r in range(dialog.lines.rowCount())]
    assert all(place.startswith("m.c:") for place in places)
    assert function.name in dialog.lines_label.text()
    dialog.reject()
