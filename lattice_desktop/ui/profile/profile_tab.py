"""The Profile tab: a run's exact fuel profile on one case, and the compared run's beside it.

A stored profile opens at once; otherwise the tab profiles the case when it is first shown
(off the GUI thread, with progress and Cancel) and stores the result. The compared run is
the one chosen in the Fuel tab's "Compare with" box (`follow_compare`).

Left, two views of the profile: Functions (the table, the selected function's callers and
callees) and Lines (every source line, hottest first); right, the Source view of the selected
function; below, the flame graph.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.formatting import fuel
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.profile.case_lines import case_lines
from lattice_desktop.profile.model import Profile
from lattice_desktop.services.profiling import run_profile
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common.delegates import SORT_ROLE
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.profile.flame_panel import FlamePanel
from lattice_desktop.ui.profile.lines_view import LinesView
from lattice_desktop.ui.profile.models import INDEX_ROLE, EdgesModel, FunctionsModel, function_rows
from lattice_desktop.ui.profile.source_view import SourceView
from lattice_desktop.ui.profile.table_view import rows_table
from lattice_desktop.work import Step

UPPER_SHARE = 66  # percent of the tab's height for the tables and the source, at first


class ProfileTab(QWidget):
    def __init__(self, writer: Writer | None, parent=None) -> None:
        super().__init__(parent)
        self.writer = writer
        self.run: StoredRun | None = None
        self.profile: Profile | None = None
        self.other_id: int | None = None
        self.other: Profile | None = None
        self.pending = False  # no stored profile: make one when the tab is shown
        self._compare_box: QComboBox | None = None
        self._query = LatestQuery(self._loaded, self, on_step=self._step)
        self._query.failed.connect(self._failed)
        self._other_query = LatestQuery(self._other_loaded, self)
        self._other_query.failed.connect(self._failed)
        self._build()

    def _build(self) -> None:
        self.case_box = QComboBox(self)
        self.case_box.setMinimumWidth(160)
        self.case_box.activated.connect(self._case_chosen)
        self.profile_button = QPushButton("Profile", self)
        self.profile_button.setToolTip("Run this case instrumented and count where its fuel goes")
        self.profile_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(220)
        self.progress.hide()
        self.summary = QLabel(self)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Ignored: a long summary (a compared run's figures) is cut, never widens the tab
        # (which would squeeze the runs list); the tooltip holds it whole.
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        top = QHBoxLayout()
        top.addWidget(QLabel("Case", self))
        top.addWidget(self.case_box)
        top.addWidget(self.profile_button)
        top.addWidget(self.cancel_button)
        top.addWidget(self.progress)
        top.addWidget(self.summary, 1)

        self.functions = FunctionsModel(self)
        self.sorted = QSortFilterProxyModel(self)
        self.sorted.setSourceModel(self.functions)
        self.sorted.setSortRole(SORT_ROLE)
        self.table = rows_table(self, self.sorted)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.callers = EdgesModel("Caller", self)
        self.callees = EdgesModel("Callee", self)
        self.callers_view = _edges_table(self, self.callers)
        self.callees_view = _edges_table(self, self.callees)
        for view in (self.callers_view, self.callees_view):
            view.doubleClicked.connect(self._edge_opened)
        functions_page = QSplitter(Qt.Orientation.Vertical, self)  # the table over its callers, callees
        for pane in (self.table, self.callers_view, self.callees_view):
            functions_page.addWidget(pane)
        functions_page.setSizes([300, 90, 90])
        functions_page.setChildrenCollapsible(False)
        self.function_panes = functions_page
        self.lines_view = LinesView(self)  # every source line of the case, hottest first
        self.lines_view.line_chosen.connect(self._line_chosen)
        self.views = QTabWidget(self)
        self.views.setDocumentMode(True)
        self.views.addTab(functions_page, "F&unctions")
        self.views.addTab(self.lines_view, "&Lines")
        self.views.setTabToolTip(
            0, "Per function: self and inclusive fuel, calls, callers and callees (Alt+U)"
        )
        self.views.setTabToolTip(1, "Every source line of the case, hottest first, across functions (Alt+L)")
        self.views.currentChanged.connect(self._view_changed)
        self.source_view = SourceView(self)  # the selected function's fuel per source line
        upper = QSplitter(self)
        upper.addWidget(self.views)
        upper.addWidget(self.source_view)
        upper.setStretchFactor(0, 1)
        upper.setStretchFactor(1, 1)
        upper.setChildrenCollapsible(False)
        self.upper = upper

        self.flame = FlamePanel(self)
        self.flame.function_chosen.connect(self.select_function)
        self.chart, self.other_chart = self.flame.chart, self.flame.other_chart
        body = QSplitter(Qt.Orientation.Vertical, self)
        body.addWidget(upper)
        body.addWidget(self.flame)
        # The tables and the source over the flame graph: room for ~15 source lines at
        # 1366×768 and the graph's few rows below them.
        body.setStretchFactor(0, 2)
        body.setStretchFactor(1, 1)
        body.setSizes([UPPER_SHARE, 100 - UPPER_SHARE])
        body.setChildrenCollapsible(False)
        self.body = body

        self.empty = QLabel(self)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)
        self.show_run(None, None)

    # What is shown -------------------------------------------------------------------

    def show_run(self, run: StoredRun | None, case: CaseManifest | None) -> None:
        """Show `run`'s profile on its largest stress case (stored, or made when shown)."""
        self._query.forget()
        self.run, self.profile, self.pending = run, None, False
        self.case_box.clear()
        self._set_busy(False)
        if run is None or run.module_sha256 is None:
            self._empty(
                "No run open — pick a run in the runs list to see which functions burn its fuel."
                if run is None
                else "This run has no module to profile (it did not build)."
            )
            return
        entries = list(case.stress) + list(case.smoke) if case is not None else []
        names = [e.name for e in entries] or [r.name for r in run.results]
        largest = max(case.stress, key=lambda e: e.size).name if case is not None and case.stress else None
        for name in names:
            self.case_box.addItem(name, name)
        if largest is not None:
            self.case_box.setCurrentIndex(self.case_box.findData(largest))
        self._empty(f"Looking for a stored profile of {self.case_name()}…")
        self._query.request(run_profile, run.id, self.case_name(), None, False)
        self._load_other()

    def case_name(self) -> str | None:
        data = self.case_box.currentData()
        return str(data) if data is not None else None

    def follow_compare(self, box: QComboBox) -> None:
        """Compare with the run chosen in `box` (the Fuel tab's "Compare with"; its item
        data is a run id, or None for nothing)."""
        self._compare_box = box
        box.currentIndexChanged.connect(self._compare_index)

    @Slot(int)
    def _compare_index(self, index: int) -> None:
        box = self._compare_box
        self.compare_with(box.itemData(index) if box is not None and index >= 0 else None)

    def compare_with(self, run_id: int | None) -> None:
        self.other_id = run_id if isinstance(run_id, int) else None
        self.other = None
        self._load_other()
        self._redraw()

    def _load_other(self) -> None:
        self._other_query.forget()
        if self.other_id is not None and self.run is not None and self.other_id != self.run.id:
            # the compared run's profile on the same case: made if need be, after ours
            self._other_query.request(
                run_profile, self.other_id, self.case_name(), self.writer, True, work=True
            )

    # Profiling -----------------------------------------------------------------------

    @Slot()
    def start(self) -> None:
        if self.run is None:
            return
        self.pending = False
        self._set_busy(True)
        self._empty(f"Profiling {self.case_name()}: the module runs instrumented in the sandbox…")
        self._query.request(run_profile, self.run.id, self.case_name(), self.writer, True, work=True)

    @Slot()
    def cancel(self) -> None:
        self._query.forget()
        self._set_busy(False)
        self.pending = False
        self._empty("Profiling cancelled — press Profile to run it again.")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.pending:
            self.start()

    @Slot(int)
    def _case_chosen(self, _index: int) -> None:
        if self.run is not None:
            self.profile, self.other = None, None
            self._empty(f"Looking for a stored profile of {self.case_name()}…")
            self._query.request(run_profile, self.run.id, self.case_name(), None, False)
            self._load_other()

    def _step(self, step: Step) -> None:
        self.progress.setValue(int(step.fraction * 100))
        self.progress.setFormat(step.message or "%p%")

    def _loaded(self, profile: Profile | None) -> None:
        self._set_busy(False)
        if profile is None:
            if self.isVisible():
                self.start()
            else:
                self.pending = True
                self._empty(f"{self.case_name()} is not profiled yet: it is profiled when this tab opens.")
            return
        self.profile = profile
        self._redraw()

    def _other_loaded(self, profile: Profile | None) -> None:
        self.other = profile
        self._redraw()

    @Slot(str, str)
    def _failed(self, message: str, trace: str) -> None:
        self._set_busy(False)
        self._empty(f"⚠ {message}" + (f"\n\n{trace}" if trace else ""))

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.profile_button.setEnabled(not busy and self.run is not None)
        if busy:
            self.progress.setValue(0)

    def _empty(self, text: str) -> None:
        self.empty.setText(text)
        self.stack.setCurrentIndex(0)
        self.summary.clear()

    def _redraw(self) -> None:
        profile = self.profile
        if profile is None:
            return
        other = self.other if self.other_id is not None else None
        self.functions.set_rows(function_rows(profile, other), compared=other is not None)
        self.table.resizeColumnsToContents()
        self.summary.setText(summary_text(profile, other))
        self.summary.setToolTip(
            self.summary.text()
            + f"\n{profile.total:,} fuel"
            + (f"; compared run {other.total:,}" if other else "")
        )
        self.flame.set_profiles(profile, other)
        self.stack.setCurrentIndex(1)
        if self.sorted.rowCount():
            self.table.selectRow(0)
            self._row_changed(self.table.currentIndex(), self.table.currentIndex())
        run_id = self.run.id if self.run is not None else None
        self.lines_view.show_profile(profile, other, run_id, self.other_id)
        if self.views.currentWidget() is self.lines_view:
            self.lines_view.select_top()

    # Selection -------------------------------------------------------------------------

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        index = self.sorted.data(current, INDEX_ROLE)
        if index is not None and self.profile is not None:
            self._show_edges(int(index))

    def _show_edges(self, index: int) -> None:
        assert self.profile is not None
        self.callers.set_edges(self.profile, self.profile.callers(index), callers=True)
        self.callees.set_edges(self.profile, self.profile.callees(index), callers=False)
        for view in (self.callers_view, self.callees_view):
            _fit_figures(view)
        self.flame.select(index)
        other = self.other if self.other_id is not None else None
        run_id = self.run.id if self.run is not None else None
        self.source_view.show_function(self.profile, index, other, run_id, self.other_id)

    @Slot(int)
    def select_function(self, index: int) -> None:
        """Select the function with module index `index` in the table (if it ran)."""
        for row in range(self.sorted.rowCount()):
            if self.sorted.data(self.sorted.index(row, 0), INDEX_ROLE) == index:
                self.table.selectRow(row)
                return

    @Slot(int, str, int)
    def _line_chosen(self, function: int, file: str, line: int) -> None:
        """A row of the Lines view: its function selected, the Source view on that line."""
        self.select_function(function)
        if self.source_view.index != function and self.profile is not None:
            self._show_edges(function)  # not in the table (it cannot be, but show it anyway)
        self.source_view.show_line(file, line)

    @Slot(int)
    def _view_changed(self, _index: int) -> None:
        """Opening the Lines view goes to its hottest line, and its keys work at once."""
        if self.views.currentWidget() is self.lines_view:
            self.lines_view.select_top()
            self.lines_view.table.setFocus()

    def _edge_opened(self, index: QModelIndex) -> None:
        target = index.model().data(index, INDEX_ROLE)
        if isinstance(target, int):
            self.select_function(target)


def summary_text(profile: Profile, other: Profile | None) -> str:
    """One line: the total, the check against the graded figure, the compared total."""
    parts = [f"{profile.total:,} fuel"]
    if profile.graded_fuel is not None:
        same = profile.graded_fuel == profile.total
        parts.append("= graded, exactly" if same else f"≠ graded {profile.graded_fuel:,}")
    if not profile.complete:
        parts.append(f"did not return ({profile.outcome}); {profile.unattributed:,} unattributed")
    top = profile.ranked()[:1]
    if top:
        parts.append(f"most: {top[0].name} ({profile.percent(top[0].self_fuel):.0f}% self)")
    hottest = case_lines(profile)[:1] if profile.line_table else []
    if hottest:
        parts.append(f"hottest line: {hottest[0].place} ({profile.percent(hottest[0].fuel):.2f}%)")
    if other is not None and profile.total:
        parts.append(f"compared run: {fuel(other.total)} ({other.total / profile.total:.2f}×)")
    return " · ".join(parts)


def _edges_table(parent: QWidget, model) -> QTableView:
    """A callers or callees pane: the name takes the room left, the figures never cut."""
    view = rows_table(parent, model)
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    header.setMinimumSectionSize(40)
    return view


def _fit_figures(view: QTableView) -> None:
    """Size the figures' columns to their contents and give the name what is left (at
    least its header); the pane's minimum width keeps every column whole."""
    header = view.horizontalHeader()
    figures = 0
    for column in range(1, header.count()):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        figures += max(view.sizeHintForColumn(column), header.sectionSizeHint(column))
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    frame = view.frameWidth() * 2 + view.verticalScrollBar().sizeHint().width()
    view.setMinimumWidth(figures + header.sectionSizeHint(0) + frame)
