"""The Leaderboard tab from a real database: ranking, the over-ceiling section, the open
run's model highlighted, double-click to open, and harness boxes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import Qt

from lattice_desktop.harness import load_box, load_trace, score
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.ui.delegates import ID_ROLE
from lattice_desktop.ui.leaderboard_model import OVER_SECTION
from lattice_desktop.ui.window_tabs import LEADERBOARD, RESULTS

HARNESS = Path(__file__).resolve().parents[2] / "resources" / "harness"


def board_ready(qtbot, window) -> None:
    tab = window.leaderboard_tab
    qtbot.waitUntil(
        lambda: (
            tab.case_picker.count() > 0
            and not tab._choices_query.busy
            and not tab._board_query.busy
            and tab.table.model() is not None
        ),
        timeout=10_000,
    )


def cells(model, row: int) -> list[str]:
    return [model.index(row, c).data() for c in range(model.columnCount())]


def test_models_ranked_by_best_fuel_over_ceiling_apart(qtbot, graded, window):
    board_ready(qtbot, window)
    model = window.leaderboard_tab.fuel_model
    qtbot.waitUntil(lambda: model.rowCount() == 3)
    assert cells(model, 0)[:5] == ["#1", "model-a", "10 fuel", "× 1.00", "1"]
    assert model.index(1, 0).data() == OVER_SECTION
    over = cells(model, 2)
    assert over[0] == "▲" and over[1] == "model-b" and "% over" in over[2]
    assert model.index(2, 1).data(Qt.ItemDataRole.ForegroundRole) is not None  # greyed
    assert window.leaderboard_tab.table.rowSpan(1, 0) == 1
    assert window.leaderboard_tab.table.columnSpan(1, 0) == model.columnCount()
    assert window.leaderboard_tab.case_picker.currentText() == "echo"
    assert window.leaderboard_tab.variant_picker.currentText() == "standard"
    content = model.board.content
    assert len(content) == 64 and f"content {content[:12]}" in window.leaderboard_tab.scope_note.text()


def test_the_open_runs_model_is_highlighted_and_double_click_opens(qtbot, graded, window):
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.open_run(graded["bytewise"])
    board_ready(qtbot, window)
    model = window.leaderboard_tab.fuel_model
    qtbot.waitUntil(lambda: model.rowCount() == 3)
    assert model.highlight_model == "model-b"
    assert model.index(2, 1).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert model.index(0, 1).data(Qt.ItemDataRole.BackgroundRole) is None
    window.tabs.setCurrentIndex(LEADERBOARD)
    table = window.leaderboard_tab.table
    with qtbot.waitSignal(window.page_shown, timeout=10_000) as shown:
        table.doubleClicked.emit(model.index(0, 1))
    assert shown.args[0].run.id == graded["echo"] == model.index(0, 1).data(ID_ROLE)
    assert window.tabs.currentIndex() == RESULTS
    assert window.runs_panel.selected_run() == graded["echo"]


def test_an_empty_board_says_what_to_do(qtbot, window):
    tab = window.leaderboard_tab
    qtbot.waitUntil(lambda: not tab._choices_query.busy)
    assert tab.stack.currentWidget() is tab.empty
    assert "Ctrl+G" in tab.empty.text()


def store_harness_runs(db_path: Path, *traces: str | Path) -> None:
    """Score and store bundled traces (by name) or trace files (by path) on the webshop box."""
    from lattice_desktop.store.database import open_database

    open_database(db_path)
    box = load_box(HARNESS / "webshop.box.toml")
    for trace in traces:
        path = trace if isinstance(trace, Path) else HARNESS / "traces" / f"{trace}.jsonl"
        name = path.stem
        result = score(box, load_trace(path))
        HarnessRun.create(
            box=result.box,
            stage=result.stage,
            harness=result.harness,
            model=result.model,
            score=result.metrics["score"].value,
            execution=result.execution.value,
            last_capture=result.last_capture_elapsed_s,
            box_source="webshop.box.toml",
            box_text="",
            trace_source=f"{name}.jsonl",
            trace_text="",
            result_json=json.dumps(result.to_dict()),
            imported=datetime.now(UTC),
        )


def test_harness_boxes_rank_by_score_then_execution_with_dashes(qtbot, db_path, make_window):
    store_harness_runs(db_path, "clean", "nothing", "looping")
    window = make_window()
    tab = window.leaderboard_tab
    qtbot.waitUntil(lambda: tab.case_picker.count() == 1 and not tab._choices_query.busy)
    assert tab.case_picker.currentText() == "webshop (harness box)"
    assert tab.version_picker.currentText() == "stage qualifier"
    model = tab.harness_model
    assert tab.table.model() is model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())] == [
        "Rank",
        "Harness / model",
        "Score",
        "Execution",
        "Cost",
        "Focus",
        "Time",
        "Compliance",
        "Tools",
    ]
    rows = [cells(model, r) for r in range(model.rowCount())]
    assert [r[1] for r in rows] == ["tidy-agent / model-a", "loopy-agent / model-a", "lost-agent / model-a"]
    assert rows[0][:4] == ["#1", "tidy-agent / model-a", "1.00", "0.88"]
    lost = rows[2]
    assert lost[4] == "-" and lost[6] == "-"  # Cost and Time could not be measured: not 0
    assert "cost" in model.index(2, 4).data(Qt.ItemDataRole.ToolTipRole).lower()


def with_an_unreported_cost(folder: Path, name: str) -> Path:
    """The bundled trace with one more model call, right after the start, whose cost it
    did not report."""
    start, *rest = (HARNESS / "traces" / f"{name}.jsonl").read_text().splitlines()
    usage = {"type": "model_usage", "t": json.loads(start)["t"], "cost_usd": None}
    path = folder / f"{name}-hidden-cost.jsonl"
    path.write_text("\n".join([start, json.dumps(usage), *rest]) + "\n")
    return path


def test_a_box_whose_runs_are_all_unranked_is_offered_and_says_why(qtbot, db_path, make_window, tmp_path):
    # The clean run with one model call whose cost it did not report: its spend is a lower
    # bound, so it is kept off the board until the cost is known.
    hidden = with_an_unreported_cost(tmp_path, "clean")
    store_harness_runs(db_path, hidden)
    window = make_window()
    tab = window.leaderboard_tab
    qtbot.waitUntil(lambda: tab.case_picker.count() == 1 and not tab._choices_query.busy)
    assert tab.case_picker.currentText() == "webshop (harness box)"
    assert tab.stack.currentWidget() is tab.empty
    text = tab.empty.text()
    assert text.startswith("No ranked harness run of this box and stage.")
    assert "1 run is not ranked — tidy-agent / model-a run clean-001: " in text
    assert "cost" in text.lower()


def test_unranked_runs_are_named_under_a_board_that_has_ranked_ones(qtbot, db_path, make_window, tmp_path):
    hidden = with_an_unreported_cost(tmp_path, "looping")
    store_harness_runs(db_path, "clean", hidden)
    window = make_window()
    tab = window.leaderboard_tab
    qtbot.waitUntil(lambda: tab.harness_model.rowCount() == 1 and not tab._choices_query.busy)
    assert cells(tab.harness_model, 0)[1] == "tidy-agent / model-a"
    assert "1 run is not ranked — loopy-agent / model-a run " in tab.scope_note.text()
