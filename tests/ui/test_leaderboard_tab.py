"""The Leaderboard tab from a real database: ranking, the over-ceiling section, the open
run's model highlighted, double-click to open, and harness boxes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import Qt

from lattice_desktop.harness import load_box, load_trace, score
from lattice_desktop.harness.ranking import UNRANKED_NOTE
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.ui.common.delegates import ID_ROLE
from lattice_desktop.ui.leaderboard.model import OVER_SECTION
from lattice_desktop.ui.window.tabs import LEADERBOARD, RESULTS

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
        "Run",
    ]
    rows = [cells(model, r) for r in range(model.rowCount())]
    assert [r[1] for r in rows] == ["tidy-agent / model-a", "loopy-agent / model-a", "lost-agent / model-a"]
    assert rows[0][:4] == ["#1", "tidy-agent / model-a", "1.00", "0.88"]
    # Each row names its run by the id every command takes, and double-click opens that one.
    ids = {row.trace_source: row.id for row in HarnessRun.select()}
    assert [r[-1] for r in rows] == [
        f"#{ids['clean.jsonl']} · clean-001",
        f"#{ids['looping.jsonl']} · looping-001",
        f"#{ids['nothing.jsonl']} · nothing-001",
    ]
    assert [model.index(r, 0).data(ID_ROLE) for r in range(3)] == [
        ids[f"{n}.jsonl"] for n in ("clean", "looping", "nothing")
    ]
    assert "not ranked" not in tab.scope_note.text()
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
    # bound, so it is not ranked until the cost is known, but it is placed by its Score,
    # marked "*" as `harness leaderboard` marks it, with the reason under the board.
    hidden = with_an_unreported_cost(tmp_path, "clean")
    store_harness_runs(db_path, hidden)
    (stored_id,) = [row.id for row in HarnessRun.select()]
    window = make_window()
    tab = window.leaderboard_tab
    qtbot.waitUntil(lambda: tab.harness_model.rowCount() == 1 and not tab._choices_query.busy)
    assert tab.case_picker.currentText() == "webshop (harness box)"
    assert tab.stack.currentWidget() is tab.table
    row = cells(tab.harness_model, 0)
    assert row[:3] == ["#1*", "tidy-agent / model-a", "1.00"]
    assert row[3].startswith("≤") and row[4].startswith("≤")  # Cost is a bound, so is Execution
    assert row[-1] == f"#{stored_id} · clean-001"
    assert "its Cost is not known" in tab.harness_model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    note = tab.scope_note.text()
    assert UNRANKED_NOTE in note
    assert (
        f"1 run is not ranked — run #{stored_id} · clean-001 (tidy-agent / model-a): its Cost is not known"
        in note
    )


def test_unranked_runs_are_named_under_a_board_that_has_ranked_ones(qtbot, db_path, make_window, tmp_path):
    # tidy captured user and root (1.00) with a call of unknown cost between its captures;
    # half captured user only (0.40), every cost known; loopy captured user only too, with a
    # call of unknown cost. Score comes first for every run: the run that captured more is
    # never below one that captured less, whatever is unknown about its cost; at equal Score
    # the ranked run comes first. The unranked ones are marked and say why.
    store_harness_runs(
        db_path,
        with_an_unreported_cost(tmp_path, "clean"),
        "user_only",
        with_an_unreported_cost(tmp_path, "looping"),
    )
    ids = {row.trace_source: row.id for row in HarnessRun.select()}
    window = make_window()
    tab = window.leaderboard_tab
    model = tab.harness_model
    qtbot.waitUntil(lambda: model.rowCount() == 3 and not tab._choices_query.busy)
    rows = [cells(model, r) for r in range(3)]
    assert [(r[0], r[1], r[2], r[-1]) for r in rows] == [
        ("#1*", "tidy-agent / model-a", "1.00", f"#{ids['clean-hidden-cost.jsonl']} · clean-001"),
        ("#2", "half-agent / model-a", "0.40", f"#{ids['user_only.jsonl']} · user-only-001"),
        ("#3*", "loopy-agent / model-a", "0.40", f"#{ids['looping-hidden-cost.jsonl']} · looping-001"),
    ]
    assert "not ranked" not in model.index(1, 0).data(Qt.ItemDataRole.ToolTipRole)
    for row in (0, 2):
        assert "not ranked: its Cost is not known" in model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    note = tab.scope_note.text()
    assert UNRANKED_NOTE in note
    assert "2 runs are not ranked — " in note
    for name, agent in (("looping", "loopy-agent"), ("clean", "tidy-agent")):
        run = (
            f"run #{ids[f'{name}-hidden-cost.jsonl']} · {name}-001 ({agent} / model-a): its Cost is not known"
        )
        assert run in note
