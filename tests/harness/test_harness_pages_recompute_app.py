"""The app's Results view and its Copy actions recompute like every other harness page
(test_harness_pages_recompute.py): the metrics table as drawn, the rows Copy puts on the
clipboard, and Copy report, each read back from its text."""

from __future__ import annotations

from formula_text import check_page_row
from generated_runs import boxes, events, trace_text
from hypothesis import given, settings
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_harness_pages_recompute import bundled_results, from_table_text

from lattice_desktop.harness import HarnessResult, parse_trace, score
from lattice_desktop.store.pages import HarnessPage
from lattice_desktop.ui.common.delegates import COPY_ROLE
from lattice_desktop.ui.harness.models import MetricsModel
from lattice_desktop.ui.harness.results import HarnessResultsTab


def model_rows(model: MetricsModel, role: int) -> list[tuple[str, str, str]]:
    def cell(row: int, column: str) -> str:
        return str(model.index(row, model.column(column)).data(role))

    return [
        (cell(r, "Metric"), cell(r, "Value"), cell(r, "Formula").split("\t")[0])
        for r in range(model.rowCount())
    ]


def check_app(tab: HarnessResultsTab, result: HarnessResult) -> None:
    page = HarnessPage(7, None, result, "box", "trace", 1, 1, 7, tuple(loop.tools for loop in result.loops))
    tab.show_page(page)
    model = tab.metrics_model
    expected = {name: m.shown for name, m in {**result.metrics, "execution": result.execution}.items()}
    tab.copy_report()
    shown = {
        "Results view": model_rows(model, Qt.ItemDataRole.DisplayRole),
        "Copy (metrics table)": model_rows(model, COPY_ROLE),
        "Copy report": from_table_text(QApplication.clipboard().text()),
    }
    for surface, rows in shown.items():
        assert len(rows) == 7, (surface, rows)
        for name, value, formula in rows:
            assert value == expected[name.lower()], (surface, name, value)
            check_page_row(f"{surface}: {name}", value, formula)


def test_the_results_view_and_copy_recompute_for_every_bundled_run(qapp):
    tab = HarnessResultsTab()
    for result in bundled_results():
        check_app(tab, result)


@settings(max_examples=40, deadline=None)
@given(boxes(), events())
def test_the_results_view_and_copy_recompute_for_generated_runs(qapp, box, evs):
    check_app(HarnessResultsTab(), score(box, parse_trace(trace_text(evs))))
