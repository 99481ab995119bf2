"""Harness runs in the app, over a real database: listed and filtered in the runs tree,
opened on their Results view (every metric, "-" when missing, formulas as stored),
imported through the window (a bad file named with its line), opened from the
leaderboard, and verified."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import patch

import pytest
from PySide6.QtCore import QModelIndex, Qt

from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import load_harness_run
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.ui.common.delegates import ID_ROLE
from lattice_desktop.ui.runs.model import HARNESS_KIND
from lattice_desktop.ui.window.tabs import LEADERBOARD, RESULTS

from .conftest import HARNESS_EXAMPLES

BOX = HARNESS_EXAMPLES / "webshop.box.toml"
TRACES = HARNESS_EXAMPLES / "traces"
TIMEOUT = 10_000


def visible(panel) -> tuple[list[str], list[str]]:
    """(performance submissions, harness run ids) the filtered tree shows."""
    proxy, runs, harness = panel.proxy, [], []

    def walk(parent: QModelIndex) -> None:
        for row in range(proxy.rowCount(parent)):
            index = proxy.index(row, 0, parent)
            source = proxy.mapToSource(index)
            if (run := panel.model.run_at(source)) is not None:
                runs.append(run.submission)
            if (h := panel.model.harness_at(source)) is not None:
                harness.append(h.result.run_id)
            walk(index)

    walk(QModelIndex())
    return runs, sorted(harness)


def open_harness(qtbot, window, stored_id: int):
    with qtbot.waitSignal(window.harness.page_shown, timeout=TIMEOUT) as shown:
        window.runs_panel.select_harness_run(stored_id)  # as a click in the tree would
    return shown.args[0]


def listed(qtbot, window, count: int) -> None:
    qtbot.waitUntil(lambda: len(window.runs_panel.model.harness) == count, timeout=TIMEOUT)


def test_harness_runs_are_listed_per_box_then_harness_and_filter(qtbot, graded, harness_stored, window):
    panel = window.runs_panel
    listed(qtbot, window, 7)
    model = panel.model
    groups = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert groups[0].startswith("echo 1/standard · unregistered content ")  # no bundled echo
    assert groups[1:] == ["◇ webshop · qualifier"]
    box = model.index(1, 0)
    agents = sorted(model.index(r, 0, box).data() for r in range(model.rowCount(box)))
    assert "lost-agent / model-a" in agents and len(agents) == 7
    nothing = model.index_of_harness_run(harness_stored["nothing"])
    assert nothing.data() == f"nothing-001 #{harness_stored['nothing']}"
    assert nothing.siblingAtColumn(2).data() == "0.00"  # Score
    assert nothing.siblingAtColumn(1).data() == "exec 1.00"  # Execution
    looping = model.index_of_harness_run(harness_stored["looping"])
    assert (looping.siblingAtColumn(2).data(), looping.siblingAtColumn(1).data()) == ("0.40", "exec 0.73")

    qtbot.keyClicks(panel.filter_box, "lost-agent")
    assert visible(panel) == ([], ["nothing-001"])
    panel.filter_box.clear()
    panel.verdict_picker.setCurrentIndex(panel.verdict_picker.findData(HARNESS_KIND))
    runs, harness = visible(panel)
    assert runs == [] and len(harness) == 7
    panel.verdict_picker.setCurrentIndex(0)
    panel.case_picker.setCurrentIndex(panel.case_picker.findData("webshop · qualifier"))
    assert visible(panel)[0] == [] and len(visible(panel)[1]) == 7
    panel.case_picker.setCurrentIndex(panel.case_picker.findData("echo 1/standard"))
    assert visible(panel)[1] == []
    panel.case_picker.setCurrentIndex(0)
    panel.model_picker.setCurrentIndex(panel.model_picker.findData("model-a"))
    assert visible(panel) == (["echo"], sorted(h.result.run_id for h in model.harness))


def test_opening_a_run_shows_every_metric_dash_for_missing_and_the_stored_formulas(
    qtbot, harness_stored, window, db_path
):
    listed(qtbot, window, 7)
    page = open_harness(qtbot, window, harness_stored["nothing"])
    assert window.harness.page is page and window.page is None
    assert window.tabs.currentIndex() == RESULTS
    results = window.harness.results
    assert window.tab_stacks[0].currentWidget() is results
    assert window.header.title.text() == "lost-agent · webshop · qualifier · model-a"
    assert window.header.score.text() == "Score 0.00 · Execution 1.00"
    assert window.header.standing.text() == "#7 of 7 on webshop · qualifier"

    model = results.metrics_model
    shown = {
        model.index(r, 0).data(): [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    }
    assert list(shown) == ["Score", "Cost", "Focus", "Time", "Compliance", "Tools", "Execution"]
    values = {name: row[model.column("Value")] for name, row in shown.items()}
    assert values == {
        "Score": "0.00",
        "Cost": "-",
        "Focus": "1.00",
        "Time": "-",
        "Compliance": "1.00",
        "Tools": "1.00",
        "Execution": "1.00",
    }
    assert "none" in shown["Cost"][model.column("Evidence")]
    assert "partial" in shown["Execution"][model.column("Evidence")]
    open_database(db_path)
    stored = load_harness_run(harness_stored["nothing"]).result
    formulas = {name: row[model.column("Formula")] for name, row in shown.items()}
    assert formulas == {
        **{n.capitalize(): m.formula for n, m in stored.metrics.items()},
        "Execution": stored.execution.formula,
    }
    assert "Cost, Time not measured: dropped" in formulas["Execution"]
    tip = model.index(1, model.column("Formula")).data(Qt.ItemDataRole.ToolTipRole)
    assert "inputs (exact)" in tip
    assert "nothing was captured" in results.notes.text()
    assert results.loops_table.isHidden() and "No loop" in results.loops_note.text()
    assert results.findings_table.isHidden()

    # Factory and Fuel: a calm empty state, not a replay.
    factory, fuel = window.tab_stacks[1], window.tab_stacks[2]
    assert factory.currentWidget() is window.harness.no_factory
    assert window.harness.no_factory.text().startswith("Harness runs have no factory — ")
    assert fuel.currentWidget() is window.harness.no_fuel


def test_loops_show_the_repeated_calls_and_findings_their_lines(qtbot, harness_stored, window):
    listed(qtbot, window, 7)
    open_harness(qtbot, window, harness_stored["looping"])
    loops = window.harness.results.loops_model
    assert loops.rowCount() == 2
    first = [loops.index(0, c).data() for c in range(loops.columnCount())]
    assert first == ['shell {"command": "sudo su"}', "×8", "15–29", "▲ serious · counted", "0.70"]
    assert " → " in loops.index(1, 0).data() and "mild" in loops.index(1, 3).data()

    open_harness(qtbot, window, harness_stored["repeat_after_403"])
    findings = window.harness.results.findings_model
    rows = [[findings.index(r, c).data() for c in range(3)] for r in range(findings.rowCount())]
    assert rows == [[str(n), "repeat_after_rejection", "http_request"] for n in (4, 5, 6)]
    assert "403 on line 3" in findings.index(0, 3).data()
    assert not window.harness.results.findings_table.isHidden()


def test_opening_a_performance_run_after_a_harness_run_restores_its_tabs(
    qtbot, graded, harness_stored, window
):
    listed(qtbot, window, 7)
    open_harness(qtbot, window, harness_stored["clean"])
    with qtbot.waitSignal(window.page_shown, timeout=TIMEOUT):
        window.runs_panel.select_run(graded["echo"])
    assert window.harness.page is None
    assert [s.currentIndex() for s in window.tab_stacks] == [0, 0, 0, 0, 0]
    assert window.header.title.text() == "echo · echo 1/standard · model-a"


def bad_trace(folder: Path) -> Path:
    """clean.jsonl with its third line's tool call missing its arguments."""
    lines = (TRACES / "clean.jsonl").read_text().splitlines()
    call = json.loads(lines[2])
    assert call["type"] == "tool_call"
    del call["arguments"]
    lines[2] = json.dumps(call)
    path = folder / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_import_through_the_window_names_a_bad_traces_line(qtbot, window, tmp_path, monkeypatch):
    broken = bad_trace(tmp_path)
    monkeypatch.setattr("lattice_desktop.ui.harness.side.choose_harness_box", lambda *_: BOX)
    monkeypatch.setattr(
        "lattice_desktop.ui.harness.side.choose_harness_traces",
        lambda *_: [TRACES / "user_only.jsonl", broken],
    )
    with qtbot.waitSignal(window.harness.imported, timeout=TIMEOUT) as done:
        window.harness.import_action.trigger()
    outcome = done.args[0]
    assert len(outcome.stored) == 1 and len(outcome.errors) == 1
    message = window.message_bar.message()
    assert f"{broken}:3: " in message and "'arguments' is missing" in message
    assert "1 other imported" in message
    # The good trace was stored and opens.
    qtbot.waitUntil(
        lambda: window.harness.page is not None and window.harness.page.result.run_id == "user-only-001",
        timeout=TIMEOUT,
    )
    # The runs list's read may come back after the page's: the run is selected once it is
    # listed.
    listed(qtbot, window, 1)
    assert window.runs_panel.selected_harness_run() == outcome.stored[0]


def test_an_inspect_ai_log_imports_through_the_window_and_shows_its_inputs(qtbot, window):
    pytest.importorskip("inspect_ai")
    inspect = HARNESS_EXAMPLES / "inspect"
    with (
        patch(
            "lattice_desktop.ui.harness.side.choose_harness_box",
            lambda *_: inspect / "webshop_ctf.box.toml",
        ),
        patch(
            "lattice_desktop.ui.harness.side.choose_harness_traces",
            lambda *_: [inspect / "webshop_ctf.eval"],
        ),
        qtbot.waitSignal(window.harness.imported, timeout=TIMEOUT) as done,
    ):
        window.harness.import_action.trigger()
    assert len(done.args[0].stored) == 1 and done.args[0].errors == []
    qtbot.waitUntil(lambda: window.harness.page is not None, timeout=TIMEOUT)
    view = window.harness.results
    shown = {
        view.metrics_model.index(r, 0).data(): view.metrics_model.index(r, 1).data()
        for r in range(view.metrics_model.rowCount())
    }
    assert shown["Score"] == "1.00" and shown["Cost"] == "0.97" and shown["Compliance"] == "-"
    inputs = view.inputs.text()
    assert 'sample "ctf-1", epoch 1' in inputs
    assert 'user is captured when a tool result contains "FLAG{user-7f3a}"' in inputs
    assert "1200 input x $3/Mtok + 80 output x $15/Mtok = $0.0048" in inputs
    assert view.inputs.isVisibleTo(view)
    assert "webshop_ctf.eval#sample=ctf-1,epoch=1" in view.sources.text()


def test_a_bad_box_key_is_named_and_nothing_is_stored(qtbot, window, tmp_path):
    box = tmp_path / "typo.box.toml"
    box.write_text(BOX.read_text().replace("deadline_seconds", "deadline_secs", 1))
    with qtbot.waitSignal(window.harness.imported, timeout=TIMEOUT) as done:
        window.harness.import_runs(box, [TRACES / "clean.jsonl"])
    assert done.args[0].stored == []
    message = window.message_bar.message()
    assert f"{box}:" in message and "deadline_secs" in message
    assert HarnessRun.select().count() == 0


def test_double_click_on_a_harness_board_row_opens_that_run(qtbot, graded, harness_stored, window):
    listed(qtbot, window, 7)
    tab = window.leaderboard_tab
    qtbot.waitUntil(lambda: tab.case_picker.count() == 2 and not tab._choices_query.busy, timeout=TIMEOUT)
    with qtbot.waitSignal(window.page_shown, timeout=TIMEOUT):
        window.runs_panel.select_run(graded["echo"])
    qtbot.waitUntil(
        lambda: tab.table.model() is tab.fuel_model and not tab._board_query.busy, timeout=TIMEOUT
    )
    open_harness(qtbot, window, harness_stored["nothing"])  # the board follows the open run
    qtbot.waitUntil(
        lambda: (
            tab.table.model() is tab.harness_model
            and tab.harness_model.rowCount() == 7
            and not tab._choices_query.busy
            and not tab._board_query.busy
        ),
        timeout=TIMEOUT,
    )
    assert tab.case_picker.currentData() == ("harness", "webshop")
    board = tab.harness_model
    assert board.mine(6) and not board.mine(0)  # the open run's harness and model
    window.tabs.setCurrentIndex(LEADERBOARD)
    with qtbot.waitSignal(window.harness.page_shown, timeout=TIMEOUT) as shown:
        tab.table.doubleClicked.emit(board.index(0, 1))
    assert shown.args[0].id == harness_stored["clean"] == board.index(0, 1).data(ID_ROLE)
    assert window.tabs.currentIndex() == RESULTS
    assert window.runs_panel.selected_harness_run() == harness_stored["clean"]
    assert window.header.standing.text() == "#1 of 7 on webshop · qualifier"


def test_verify_reports_that_every_stored_run_reproduces(qtbot, harness_stored, window):
    with qtbot.waitSignal(window.harness.checked, timeout=TIMEOUT) as done:
        window.harness.verify_action.trigger()
    text, kind = done.args
    assert kind == "info"
    assert text == "✓ All 7 stored harness runs reproduce from their stored box and trace."
    assert window.message_bar.message() == text


def test_verify_lists_a_run_that_does_not_reproduce(qtbot, harness_stored, window, db_path):
    open_database(db_path)
    row = HarnessRun.get_by_id(harness_stored["looping"])
    published = json.loads(row.result_json)
    published["metrics"]["focus"]["value"] = 0.9
    HarnessRun.update(result_json=json.dumps(published)).where(HarnessRun.id == row.id).execute()
    with qtbot.waitSignal(window.harness.checked, timeout=TIMEOUT) as done:
        window.harness.verify()
    text, kind = done.args
    assert kind == "error"
    assert text.startswith("6 of 7 stored harness runs reproduce; 1 do not")
    assert f"run #{row.id}: focus: stored value 0.9, recomputed 0.3" in text


def test_first_start_also_imports_the_bundled_harness_examples(qtbot, make_window):
    window = make_window(auto_demo=True)
    listed(qtbot, window, len(list(TRACES.glob("*.jsonl"))))
    qtbot.waitUntil(
        lambda: not window.grading.running and len(window.runs_panel.model.summaries) == 3, timeout=60_000
    )
    assert window.message_bar.message() == ""
