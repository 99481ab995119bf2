"""The Compare view: two runs case by case, the functions behind the selected case's
change, and the source lines behind the selected function's (for modules built with -g),
from the same report as `lattice-desktop compare` (`services.compare_runs`).

Missing profiles are made off the GUI thread, with progress and Cancel; the dialog shows
the report when it is ready.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import QModelIndex, Qt, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.formatting import grouped
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.compare_lines import LineChange
from lattice_desktop.services.compare_runs import CaseChange, Comparison, FunctionChange, compare_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.rows_model import RIGHT, Index, RowsModel
from lattice_desktop.ui.profile.table_view import rows_table
from lattice_desktop.work import Step


class CasesModel(RowsModel):
    columns = ("Case", "A fuel", "B fuel", "Change", "%", "Verdict")
    right_aligned = frozenset({1, 2, 3, 4})

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[CaseChange] = []

    def set_rows(self, rows: list[CaseChange]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        c, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            after = Outcome.stored(c.after_outcome).look.text
            verdict = (
                f"{Outcome.stored(c.before_outcome).look.text} → {after}" if c.verdict_changed else after
            )
            delta = "-" if c.delta is None else f"{c.delta:+,}"
            pct = "-" if c.percent is None else f"{c.percent:+.2f}%"
            return (c.name, grouped(c.before_fuel), grouped(c.after_fuel), delta, pct, verdict)[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.right_aligned:
            return RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and column in (3, 4, 5):
            worse = c.verdict_worse or (c.delta or 0) > 0
            return theme.AMBER if worse else theme.GREEN if (c.delta or 0) < 0 else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return c.note or None
        return None


class _ChangeShares(RowsModel):
    """Rows with an A and a B fuel and their change, and each change's share of the total
    change of what holds them (a case's functions, a function's lines)."""

    right_aligned = frozenset({1, 2, 3, 4})
    tip: str | None = None  # the first column's tooltip

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows = []
        self.total: int | None = None

    def _show(self, rows: Sequence[FunctionChange | LineChange], total: int | None) -> None:
        self.beginResetModel()
        self.rows, self.total = list(rows), total
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            share = f"{100 * r.delta / self.total:.1f}%" if self.total else "-"
            label = r.name if isinstance(r, FunctionChange) else r.place
            return (label, grouped(r.before), grouped(r.after), f"{r.delta:+,}", share)[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.right_aligned:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and column == 0:
            return theme.monospace()
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return self.tip
        return None


class ChangesModel(_ChangeShares):
    columns = ("Function", "A self fuel", "B self fuel", "Change", "Of the case's change")
    rows: list[FunctionChange]

    def set_case(self, case: CaseChange | None) -> None:
        self._show(case.functions if case is not None else [], case.delta if case is not None else None)


class LinesModel(_ChangeShares):
    columns = ("Source line", "A fuel", "B fuel", "Change", "Of the function's change")
    rows: list[LineChange]
    tip = (
        'A line that moved shows A\'s line → B\'s; "A only" or "B only": '
        "the other run's source has no such line"
    )

    def set_function(self, function: FunctionChange | None) -> None:
        self._show(
            function.lines if function is not None else [],
            function.delta if function is not None else None,
        )


class CompareDialog(QDialog):
    """Run `before` (A) against run `after` (B)."""

    def __init__(self, before: int, after: int, *, writer: Writer | None, db=None, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Compare run {before} (A) with run {after} (B)")
        self.comparison: Comparison | None = None
        self.heading = QLabel(f"Comparing run {before} with run {after}: profiling what changed…", self)
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar(self)
        self.cases = CasesModel(self)
        self.changes = ChangesModel(self)
        self.lines = LinesModel(self)
        self.cases_view, self.changes_view = rows_table(self, self.cases), rows_table(self, self.changes)
        self.lines_view = rows_table(self, self.lines)
        self.cases_view.selectionModel().currentRowChanged.connect(self._case_chosen)
        self.changes_view.selectionModel().currentRowChanged.connect(self._function_chosen)
        self.functions_label = QLabel("Select a case to see the functions behind its change.", self)
        self.lines_label = QLabel("Select a function to see the source lines behind its change.", self)
        self.lines_label.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.cases_view)
        split.addWidget(_titled(self, self.functions_label, self.changes_view))
        split.addWidget(_titled(self, self.lines_label, self.lines_view))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.progress)
        layout.addWidget(split, 1)
        layout.addWidget(buttons)
        self.resize(860, 680)
        self._query = LatestQuery(self._loaded, self, on_step=self._step, db=db)
        self._query.failed.connect(self._failed)
        self._query.request(partial(compare_runs, writer=writer), before, after, work=True)

    def reject(self) -> None:
        self._query.forget()  # closing cancels the profiling
        super().reject()

    def _step(self, step: Step) -> None:
        self.progress.setValue(int(step.fraction * 100))
        self.progress.setFormat(step.message or "%p%")

    def _loaded(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.progress.hide()
        a, b = comparison.before, comparison.after
        lines = [f"A: {a.label} · {a.model} · {a.verdict}", f"B: {b.label} · {b.model} · {b.verdict}"]
        self.heading.setText("\n".join(lines + [f"⚠ {n}" for n in comparison.notes]))
        self.cases.set_rows(list(comparison.cases))
        self.cases_view.resizeColumnsToContents()
        changed = next((i for i, c in enumerate(comparison.cases) if c.functions), 0)
        if comparison.cases:
            self.cases_view.selectRow(changed)

    @Slot(str, str)
    def _failed(self, message: str, trace: str) -> None:
        self.progress.hide()
        self.heading.setText(f"⚠ {message}" + (f"\n\n{trace}" if trace else ""))

    def _case_chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        case = self.cases.rows[current.row()] if current.isValid() else None
        self.changes.set_case(case)
        self.changes_view.resizeColumnsToContents()
        self.lines.set_function(None)
        self.lines_label.setText(case.lines_note if case is not None and case.lines_note else "")
        if case is None:
            return
        what = "the functions behind the change" if case.functions else case.note or "no change"
        self.functions_label.setText(f"{case.name}: {what}")
        if case.functions:
            self.changes_view.selectRow(0)

    def _function_chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        function = self.changes.rows[current.row()] if current.isValid() else None
        self.lines.set_function(function)
        self.lines_view.resizeColumnsToContents()
        if function is not None and function.lines:
            self.lines_label.setText(f"{function.name}: the source lines behind its change")


def _titled(parent: QWidget, label: QLabel, view: QTableView) -> QWidget:
    box = QWidget(parent)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(label)
    layout.addWidget(view)
    return box


def open_compare(window: QWidget, before: int, after: int) -> None:
    """Show the Compare view of run `before` (A) against run `after` (B) over `window`,
    storing profiles it makes through the window's writer."""
    dialog = CompareDialog(
        before, after, writer=getattr(window, "writer", None), db=getattr(window, "db", None), parent=window
    )
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
