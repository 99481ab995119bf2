"""A harness run's header and its row in the runs list, on a real database: a run placed by
its Score but not ranked shows its place with "*" and its reason, as the harness board does;
tooltips print formulas exactly, as computed; an Inspect AI run's name keeps its
sample and epoch readable in the list at the default window size."""

from __future__ import annotations

from PySide6.QtWidgets import QStyleOptionViewItem

from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.pages import load_harness_page
from lattice_desktop.ui.runs.header import RunHeader

from .conftest import HARNESS_EXAMPLES
from .test_leaderboard_tab import store_harness_runs, with_an_unreported_cost


def import_inspect(db_path) -> int:
    from lattice_desktop.services.harness_import import import_traces
    from lattice_desktop.store.writer import Writer

    writer = Writer(open_database(db_path))
    inspect = HARNESS_EXAMPLES / "inspect"
    try:
        (stored_id,) = import_traces(
            writer, inspect / "webshop_ctf.box.toml", [inspect / "webshop_ctf.eval"]
        ).stored
    finally:
        writer.close()
    return stored_id


def test_an_unranked_run_on_the_board_shows_its_place_with_a_mark_and_its_reason(qtbot, db_path, tmp_path):
    store_harness_runs(db_path, with_an_unreported_cost(tmp_path, "clean"), "user_only")
    ids = {row.trace_source: row.id for row in HarnessRun.select()}
    header = RunHeader()
    qtbot.addWidget(header)
    header.show_harness(load_harness_page(ids["clean-hidden-cost.jsonl"]))
    assert header.standing.text().startswith(
        "#1* of 2 on webshop · qualifier · not ranked: its Cost is not known"
    )
    assert "its Cost is not known" in header.standing.toolTip()
    assert "Placed by its Score" in header.standing.toolTip()
    header.show_harness(load_harness_page(ids["user_only.jsonl"]))
    assert header.standing.text() == "#2 of 2 on webshop · qualifier"  # ranked: no mark, no reason


def test_an_unranked_run_off_the_board_names_its_agents_best_and_its_own_reason(qtbot, db_path, tmp_path):
    store_harness_runs(db_path, "clean", with_an_unreported_cost(tmp_path, "clean"))
    ids = {row.trace_source: row.id for row in HarnessRun.select()}
    header = RunHeader()
    qtbot.addWidget(header)
    header.show_harness(load_harness_page(ids["clean-hidden-cost.jsonl"]))
    assert header.standing.text().startswith(
        f"not on the board — run #{ids['clean.jsonl']} is this agent's best · not ranked: its Cost is not known"
    )


def test_inspect_formulas_print_exactly_and_its_name_keeps_sample_and_epoch(qtbot, db_path, make_window):
    stored_id = import_inspect(db_path)
    window = make_window()
    window.resize(1500, 900)
    window.show()
    panel = window.runs_panel
    qtbot.waitUntil(lambda: len(panel.model.harness) == 1, timeout=10_000)
    source = panel.model.index_of_harness_run(stored_id)
    name = f"webshop_ctf · sample ctf-1 · epoch 1 #{stored_id}"
    assert source.data() == name
    tip = source.data(0x0003)  # ToolTipRole: the whole name, the formulas as computed
    page = load_harness_page(stored_id)
    execution = page.result.execution.formula
    assert "webshop_ctf · sample ctf-1 · epoch 1" in tip and execution in tip
    assert "≈" not in tip  # no operand approximated: the tip's numbers give its results

    index = panel.proxy.mapFromSource(source)
    option = QStyleOptionViewItem()
    option.initFrom(panel.tree)
    option.rect = panel.tree.visualRect(index)
    panel.tree.itemDelegateForColumn(0).initStyleOption(option, index)
    shown = option.text
    assert shown.endswith(f" · sample ctf-1 · epoch 1 #{stored_id}")
    assert option.fontMetrics.horizontalAdvance(shown) <= option.rect.width()
    if shown != name:  # shortened in the task only, in its middle
        head = shown.removesuffix(f" · sample ctf-1 · epoch 1 #{stored_id}")
        assert "…" in head and head[0] == "w"

    window.header.show_harness(page)
    assert execution in window.header.score.toolTip()
    assert "≈" not in window.header.score.toolTip()
