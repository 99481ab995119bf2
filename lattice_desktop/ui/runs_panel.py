"""The left side: filter box and pickers over the runs tree, and the two main actions."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedLayout,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.grading.outcomes import Verdict
from lattice_desktop.store.queries import RunSummary
from lattice_desktop.ui.delegates import ChipDelegate
from lattice_desktop.ui.runs_model import VERDICT_COLUMN, RunsFilter, RunsModel

ANY = "Any"


class RunsPanel(QWidget):
    run_selected = Signal(int)
    grade_requested = Signal()
    open_case_requested = Signal()
    demo_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RunsModel(self)
        self.proxy = RunsFilter(self)
        self.proxy.setSourceModel(self.model)

        self.filter_box = QLineEdit(placeholderText="Filter runs (Ctrl+F): case, model, submission")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self._apply_filters)
        self.case_picker, self.model_picker, self.verdict_picker = (QComboBox() for _ in range(3))
        for picker, tip in ((self.case_picker, "Case"), (self.model_picker, "Model"),
                            (self.verdict_picker, "Verdict")):
            picker.setToolTip(f"Show only runs of this {tip.lower()}")
        self.verdict_picker.addItem(f"Verdict: {ANY}", None)
        for verdict in Verdict:
            self.verdict_picker.addItem(f"{verdict.symbol} {verdict.label}", verdict.value)
        self._fill_pickers()
        for picker in (self.case_picker, self.model_picker, self.verdict_picker):
            picker.currentIndexChanged.connect(self._apply_filters)

        self.tree = QTreeView()
        self.tree.setModel(self.proxy)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setItemDelegateForColumn(VERDICT_COLUMN, ChipDelegate(self.tree))
        self.tree.setSortingEnabled(False)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentChanged.connect(self._on_current)

        self.empty = QLabel(
            "No runs yet.\n\nGrade submission… (Ctrl+G) to grade a submission folder,\n"
            "or open the bundled demo."
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

    def set_runs(self, summaries: list[RunSummary], *, select: int | None = None) -> None:
        current = select if select is not None else self.selected_run()
        self.tree.selectionModel().blockSignals(True)
        self.model.set_runs(summaries)
        self._fill_pickers()
        self.tree.expandAll()
        self.tree.selectionModel().blockSignals(False)
        if current is not None:
            self.select_run(current, notify=False)
        self._update_stack()

    def select_run(self, run_id: int, *, notify: bool = True) -> None:
        index = self.proxy.mapFromSource(self.model.index_of_run(run_id))
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

    def focus_filter(self) -> None:
        self.filter_box.setFocus()
        self.filter_box.selectAll()

    def _fill_pickers(self) -> None:
        for picker, label, values in (
            (self.case_picker, "Case", sorted({s.case_label for s in self.model.summaries})),
            (self.model_picker, "Model", sorted({s.model for s in self.model.summaries})),
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
            text=self.filter_box.text(), case=self.case_picker.currentData(),
            model=self.model_picker.currentData(),
            verdict=Verdict(self.verdict_picker.currentData()) if self.verdict_picker.currentData() else None,
        )
        self.tree.expandAll()
        self._update_stack()

    def _update_stack(self) -> None:
        if not self.model.summaries:
            self.stack.setCurrentIndex(1)
        elif self.proxy.rowCount() == 0:
            self.stack.setCurrentIndex(2)
        else:
            self.stack.setCurrentIndex(0)

    @Slot(QModelIndex, QModelIndex)
    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        run = self.model.run_at(self.proxy.mapToSource(current))
        if run is not None:
            self.run_selected.emit(run.id)
