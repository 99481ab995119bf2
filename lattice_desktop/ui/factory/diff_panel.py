"""Reference | Submission | Diff: which factory the canvas shows, and the records that differ."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.lattice.records import RecordDiff
from lattice_desktop.ui.factory.diff_model import DiffModel

MODES = ("Reference", "Submission", "Diff")


class ModeSwitch(QWidget):
    """Three joined toggle buttons; `changed(mode)` with one of `MODES`."""

    changed = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QToolButton] = {}
        for mode in MODES:
            button = QToolButton(self)
            button.setText(mode)
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.group.addButton(button)
            self.buttons[mode] = button
            layout.addWidget(button)
            button.toggled.connect(self._toggled)
        self.buttons["Reference"].setChecked(True)

    @property
    def mode(self) -> str:
        return next(m for m, b in self.buttons.items() if b.isChecked())

    def set_available(self, available: bool, reason: str) -> None:
        for mode in MODES[1:]:
            self.buttons[mode].setEnabled(available)
            self.buttons[mode].setToolTip("" if available else reason)
        if not available:
            self.buttons["Reference"].setChecked(True)

    def _toggled(self, checked: bool) -> None:
        if checked:
            self.changed.emit(self.mode)


class DiffList(QWidget):
    """The records where the submission's factory differs from the reference's (every one
    of them, grouped by cell); choosing a row emits `cell_chosen(cell)`, and `select_cell`
    selects every row of a cell."""

    cell_chosen = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._selecting = False
        self.title = QLabel("Differing records", self)
        self.title.setWordWrap(True)
        self.model = DiffModel(self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setShowGrid(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 4)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.horizontalHeader().setResizeContentsPrecision(200)  # rows sampled for widths
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.view)

    def set_message(self, text: str) -> None:
        self.model.clear()
        self.title.setText(text)

    def selected_cells(self) -> set[int]:
        return {self.model.cell_at(i.row()) for i in self.view.selectionModel().selectedRows()}

    def select_cell(self, cell: int) -> None:
        """Select every row of `cell` (quietly: no `cell_chosen`) and scroll to the first."""
        rows = self.model.rows_of(cell)
        selection = self.view.selectionModel()
        self._selecting = True
        try:
            if not rows:
                selection.clearSelection()
                return
            first = self.model.index(rows.start, 0)
            last = self.model.index(rows.stop - 1, self.model.columnCount() - 1)
            flags = QItemSelectionModel.SelectionFlag
            selection.setCurrentIndex(first, flags.NoUpdate)
            selection.select(QItemSelection(first, last), flags.ClearAndSelect | flags.Rows)
            self.view.scrollTo(first, QAbstractItemView.ScrollHint.PositionAtCenter)
        finally:
            self._selecting = False

    def _current_changed(self, current: QModelIndex, _previous) -> None:
        if current.isValid() and not self._selecting:
            self.cell_chosen.emit(self.model.cell_at(current.row()))

    def set_diffs(
        self, diffs: list[RecordDiff], width: int, tick: int, items: Mapping[int, str] | None = None
    ) -> None:
        """`items` names item types (the scenario's `item` lines): "gear (5)", else "type 5"."""
        self._selecting = True
        try:
            self.model.set_diffs(diffs, width, items)
        finally:
            self._selecting = False
        count = len(diffs)
        cells = self.model.cell_count
        self.title.setText(
            f"Tick {tick:,}: the factories agree"
            if not count
            else f"Tick {tick:,}: {count:,} differing record{'s' if count != 1 else ''} "
            f"in {cells:,} cell{'s' if cells != 1 else ''}"
        )
        # Sized with the stretch off: a stretched last column keeps the width it had before
        # (100 px at first) as its floor, so with a wider font "got" ran past the viewport.
        header = self.view.horizontalHeader()
        header.setStretchLastSection(False)
        self.view.resizeColumnsToContents()
        header.setStretchLastSection(True)
