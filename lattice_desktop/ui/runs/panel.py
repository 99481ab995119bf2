"""The left side: filter box and pickers over the runs tree (performance runs and harness
runs), and the two main actions."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedLayout,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.harness_runs import StoredHarnessRun
from lattice_desktop.store.queries import RunSummary
from lattice_desktop.ui.common.delegates import ChipDelegate
from lattice_desktop.ui.runs.model import HARNESS_KIND, KEEP_ROLE, VERDICT_COLUMN, RunsFilter, RunsModel

ANY = "Any"


class NameDelegate(QStyledItemDelegate):
    """A run's name that does not fit is shortened in the middle of the part that can go (an
    Inspect AI run's task, a submission's name), keeping its end whole: the sample, epoch and
    id (`KEEP_ROLE`). The whole name is in the row's tooltip."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        keep = index.data(KEEP_ROLE)
        text = option.text
        if not keep or not text.endswith(keep) or option.rect.width() <= 0:
            return
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        room = (
            style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, widget).width() - 2 * margin
        )
        metrics = option.fontMetrics
        if metrics.horizontalAdvance(text) <= room:
            return
        head_room = room - metrics.horizontalAdvance(keep)
        if head_room >= 3 * metrics.horizontalAdvance("…"):
            head = text[: len(text) - len(keep)]
            option.text = metrics.elidedText(head, Qt.TextElideMode.ElideMiddle, head_room) + keep
        else:
            option.text = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room)


class RunsPanel(QWidget):
    run_selected = Signal(int)
    harness_selected = Signal(int)  # a harness run's stored id
    grade_requested = Signal()
    open_case_requested = Signal()
    demo_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RunsModel(self)
        self.proxy = RunsFilter(self)
        self.proxy.setSourceModel(self.model)

        self.filter_box = QLineEdit(
            placeholderText="Filter runs (Ctrl+F): case, model, submission, box, harness"
        )
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self._apply_filters)
        self.case_picker, self.model_picker, self.verdict_picker = (QComboBox() for _ in range(3))
        for picker, tip in (
            (self.case_picker, "Case"),
            (self.model_picker, "Model"),
            (self.verdict_picker, "Verdict"),
        ):
            picker.setToolTip(f"Show only runs of this {tip.lower()}")
        self.case_picker.setToolTip("Show only runs of this case, or of this harness box and stage")
        self.verdict_picker.addItem(f"Verdict: {ANY}", None)
        for verdict in Verdict.filters():
            self.verdict_picker.addItem(verdict.look.text, verdict.value)
        self.verdict_picker.addItem("◇ harness runs", HARNESS_KIND)
        self._fill_pickers()
        for picker in (self.case_picker, self.model_picker, self.verdict_picker):
            picker.currentIndexChanged.connect(self._apply_filters)

        self.tree = QTreeView()
        self.tree.setModel(self.proxy)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setItemDelegateForColumn(VERDICT_COLUMN, ChipDelegate(self.tree))
        self.tree.setItemDelegateForColumn(0, NameDelegate(self.tree))
        self.tree.setSortingEnabled(False)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentChanged.connect(self._on_current)

        self.empty = QLabel(
            "No runs yet.\n\nGrade submission… (Ctrl+G) to grade a submission folder,\n"
            "or open the bundled demo. Harness runs: File > Import harness run…"
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        demo = QPushButton("Grade the demo samples")
        demo.clicked.connect(self.demo_requested)
        empty_page = QWidget()
        empty_layout = QVBoxLayout(empty_page)
        empty_layout.addStretch()
        empty_layout.addWidget(self.empty)
        empty_layout.addWidget(demo, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch()
        self.no_match = QLabel("No run matches the filter — clear it to see every run.")
        self.no_match.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_match.setWordWrap(True)
        self.stack = QStackedLayout()
        self.stack.addWidget(self.tree)
        self.stack.addWidget(empty_page)
        self.stack.addWidget(self.no_match)

        grade = QPushButton("Grade submission…")
        grade.setToolTip("Grade a submission folder against the current case (Ctrl+G)")
        grade.clicked.connect(self.grade_requested)
        grade.setDefault(True)
        open_case = QPushButton("Open case…")
        open_case.setToolTip("Choose the case manifest to grade against (Ctrl+O)")
        open_case.clicked.connect(self.open_case_requested)
        self.grade_button = grade

        pickers = QHBoxLayout()
        for picker in (self.case_picker, self.model_picker, self.verdict_picker):
            picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            picker.setMinimumContentsLength(6)
            pickers.addWidget(picker, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(grade)
        buttons.addWidget(open_case)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.addLayout(buttons)
        layout.addWidget(self.filter_box)
        layout.addLayout(pickers)
        layout.addLayout(self.stack, 1)
        self._update_stack()

    def set_runs(
        self,
        summaries: list[RunSummary],
        harness: list[StoredHarnessRun] | None = None,
        *,
        select: int | None = None,
        select_harness: int | None = None,
    ) -> None:
        if select is None and select_harness is None:
            select, select_harness = self.selected_run(), self.selected_harness_run()
        self.tree.selectionModel().blockSignals(True)
        self.model.set_runs(summaries, harness)
        self._fill_pickers()
        self.tree.expandAll()
        self.tree.selectionModel().blockSignals(False)
        if select is not None:
            self.select_run(select, notify=False)
        elif select_harness is not None:
            self.select_harness_run(select_harness, notify=False)
        self._update_stack()

    def select_run(self, run_id: int, *, notify: bool = True) -> None:
        self._select(self.model.index_of_run(run_id), notify)

    def select_harness_run(self, stored_id: int, *, notify: bool = True) -> None:
        self._select(self.model.index_of_harness_run(stored_id), notify)

    def _select(self, source: QModelIndex, notify: bool) -> None:
        index = self.proxy.mapFromSource(source)
        if not index.isValid():
            return
        selection = self.tree.selectionModel()
        selection.blockSignals(not notify)
        self.tree.setCurrentIndex(index)
        selection.blockSignals(False)
        self.tree.scrollTo(index)

    def selected_run(self) -> int | None:
        run = self.model.run_at(self.proxy.mapToSource(self.tree.currentIndex()))
        return None if run is None else run.id

    def selected_harness_run(self) -> int | None:
        run = self.model.harness_at(self.proxy.mapToSource(self.tree.currentIndex()))
        return None if run is None else run.id

    def focus_filter(self) -> None:
        self.filter_box.setFocus()
        self.filter_box.selectAll()

    def _fill_pickers(self) -> None:
        for picker, label, values in (
            (
                self.case_picker,
                "Case",
                sorted({s.case_label for s in self.model.summaries})
                + sorted({h.group for h in self.model.harness}),
            ),
            (
                self.model_picker,
                "Model",
                sorted(
                    {s.model for s in self.model.summaries} | {h.result.model for h in self.model.harness}
                ),
            ),
        ):
            chosen = picker.currentData()
            picker.blockSignals(True)
            picker.clear()
            picker.addItem(f"{label}: {ANY}", None)
            for value in values:
                picker.addItem(value, value)
            found = picker.findData(chosen) if chosen else 0
            picker.setCurrentIndex(max(0, found))
            picker.blockSignals(False)

    @Slot()
    def _apply_filters(self) -> None:
        self.proxy.set_filters(
            text=self.filter_box.text(),
            case=self.case_picker.currentData(),
            model=self.model_picker.currentData(),
            verdict=_verdict(self.verdict_picker.currentData()),
        )
        self.tree.expandAll()
        self._update_stack()

    def _update_stack(self) -> None:
        if self.model.empty:
            self.stack.setCurrentIndex(1)
        elif self.proxy.rowCount() == 0:
            self.stack.setCurrentIndex(2)
        else:
            self.stack.setCurrentIndex(0)

    @Slot(QModelIndex, QModelIndex)
    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        source = self.proxy.mapToSource(current)
        run, harness = self.model.run_at(source), self.model.harness_at(source)
        if run is not None:
            self.run_selected.emit(run.id)
        elif harness is not None:
            self.harness_selected.emit(harness.id)


def _verdict(data: str | None) -> Verdict | str | None:
    if not data:
        return None
    return HARNESS_KIND if data == HARNESS_KIND else Verdict(data)
