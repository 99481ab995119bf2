"""The main window over a real database: runs tree, filters, header, tabs, status bar,
first start with the demo, dropped folders and recent items."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent

from lattice_desktop.outcomes import Verdict
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.ui.common.delegates import CHIP_ROLE
from lattice_desktop.ui.window.tabs import FACTORY, FUEL, LEADERBOARD, RESULTS


def visible_runs(panel) -> list[str]:
    proxy, names = panel.proxy, []

    def walk(parent) -> None:
        for row in range(proxy.rowCount(parent)):
            index = proxy.index(row, 0, parent)
            run = panel.model.run_at(proxy.mapToSource(index))
            if run is not None:
                names.append(run.submission)
            walk(index)

    from PySide6.QtCore import QModelIndex

    walk(QModelIndex())
    return names


def test_runs_are_grouped_by_case_then_model(qtbot, graded, window):
    panel = window.runs_panel
    qtbot.waitUntil(lambda: len(panel.model.summaries) == 3)
    model = panel.model
    assert model.rowCount() == 1
    case = model.index(0, 0)
    assert case.data().startswith("echo 1/standard · unregistered content ")  # no bundled echo
    assert sorted(model.index(r, 0, case).data() for r in range(model.rowCount(case))) == [
        "model-a",
        "model-b",
        "model-c",
    ]
    leaf = model.index_of_run(graded["bytewise"])
    chip = leaf.siblingAtColumn(1).data(CHIP_ROLE)
    assert (chip.symbol, chip.label) == ("▲", "over ceiling")
    assert leaf.siblingAtColumn(2).data().startswith("+")  # its % over, not a score
    correct = model.index_of_run(graded["echo"])
    assert correct.siblingAtColumn(2).data() == "10 fuel"
    assert panel.stack.currentWidget() is panel.tree


def test_filters_narrow_the_tree(qtbot, graded, window):
    panel = window.runs_panel
    qtbot.waitUntil(lambda: len(panel.model.summaries) == 3)
    qtbot.keyClicks(panel.filter_box, "model-b")
    assert visible_runs(panel) == ["bytewise"]
    panel.filter_box.clear()
    panel.verdict_picker.setCurrentIndex(panel.verdict_picker.findData(Verdict.INCORRECT.value))
    assert visible_runs(panel) == ["wrong"]
    panel.verdict_picker.setCurrentIndex(0)
    panel.model_picker.setCurrentIndex(panel.model_picker.findData("model-a"))
    assert visible_runs(panel) == ["echo"]
    panel.model_picker.setCurrentIndex(0)
    qtbot.keyClicks(panel.filter_box, "no such thing")
    assert panel.stack.currentWidget() is panel.no_match


def test_ctrl_f_focuses_the_filter_and_ctrl_digits_switch_tabs(qtbot, graded, window):
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    for key, tab in (
        (Qt.Key.Key_4, LEADERBOARD),
        (Qt.Key.Key_2, FACTORY),
        (Qt.Key.Key_3, FUEL),
        (Qt.Key.Key_1, RESULTS),
    ):
        qtbot.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentIndex() == tab
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.runs_panel.filter_box.hasFocus()


def test_selecting_a_run_opens_it_everywhere(qtbot, graded, window):
    panel = window.runs_panel
    qtbot.waitUntil(lambda: len(panel.model.summaries) == 3)
    with qtbot.waitSignal(window.page_shown, timeout=10_000) as shown:
        panel.select_run(graded["wrong"])
    page = shown.args[0]
    assert page.run.id == graded["wrong"]
    assert window.header.title.text() == "wrong · echo 1/standard · model-c"
    assert window.header.chip.text() == "✗ incorrect"
    assert window.header.standing.text().startswith("not ranked")
    assert window.results_tab.page is page


def test_status_bar_names_the_database_and_wasmtime(window, db_path):
    database, wasmtime = window.status_bar.facts
    assert str(db_path) in database.text()
    assert wasmtime.text() == f"wasmtime {WASMTIME_VERSION}"
    assert window.grading_status.isHidden()


def test_an_empty_database_says_what_to_do(window):
    panel = window.runs_panel
    assert panel.stack.currentIndex() == 1
    assert "Grade submission…" in panel.empty.text()
    assert window.header.title.text() == "No run open"


def test_first_start_grades_the_demo_samples(qtbot, make_window):
    window = make_window(auto_demo=True)
    qtbot.waitUntil(
        lambda: (
            len(window.runs_panel.model.summaries) == 3
            and all(s.verdict.finished for s in window.runs_panel.model.summaries)
        ),
        timeout=60_000,
    )
    verdicts = {s.submission: s.verdict for s in window.runs_panel.model.summaries}
    assert verdicts == {"echo": Verdict.CORRECT, "bytewise": Verdict.OVER_CEILING, "wrong": Verdict.INCORRECT}
    qtbot.waitUntil(lambda: window.page is not None, timeout=10_000)  # something to look at


def drop(window, path) -> None:
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def test_dropping_a_case_then_a_submission_grades_it(qtbot, window, toy_case, tmp_path):
    window.case_path = None
    drop(window, toy_case.root)
    qtbot.waitUntil(lambda: window.case_path == toy_case.case_path)  # checked off the GUI thread
    with qtbot.waitSignal(window.page_shown, timeout=60_000) as shown:
        drop(window, toy_case.submission("echo"))
    assert shown.args[0].run.summary.submission == "echo"
    drop(window, tmp_path)
    assert "neither case.toml nor submission.toml" in window.message_bar.message()


def test_recent_cases_and_submissions_are_remembered(qtbot, window, toy_case, settings):
    window.open_case(toy_case.case_path)
    with qtbot.waitSignal(window.grading.idle, timeout=60_000):
        window.grade_submission(toy_case.submission("echo"))
    settings.sync()
    assert window.recent_cases.items()[0] == str(toy_case.case_path)
    assert window.recent_submissions.items()[0] == str(toy_case.submission("echo").resolve())
    window.recent_menu.aboutToShow.emit()
    actions = {a.text(): a for a in window.recent_menu.actions()}
    assert str(toy_case.case_path) in actions
    window.case_path = None
    actions[str(toy_case.case_path)].trigger()  # each entry calls its own handler
    qtbot.waitUntil(lambda: window.case_path == toy_case.case_path)


def test_a_returning_user_sees_their_newest_run(qtbot, graded, make_window):
    window = make_window(auto_demo=True)
    qtbot.waitUntil(lambda: window.page is not None, timeout=10_000)
    assert window.page.run.id == max(graded.values())
    assert not window.grading.running  # nothing regraded: the database already had runs
