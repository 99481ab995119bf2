"""Reference | Submission | Diff: which factory the canvas shows, and the records that differ."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.lattice.checksum import Kind, key_low
from lattice_desktop.lattice.records import RecordDiff

MODES = ("Reference", "Submission", "Diff")
KIND_NAMES = {
    Kind.BELT_ITEM: "belt item",
    Kind.SOURCE_ITEM: "source buffer",
    Kind.SINK_COUNT: "sink count",
    Kind.ASSEMBLER: "assembler timer",
    Kind.ASSEMBLER_OUTPUT: "assembler output",
    Kind.ASSEMBLER_BUFFER: "assembler buffer",
}
MAX_ROWS = 5000


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
    """The records where the submission's factory differs from the reference's; choosing a
    row emits `cell_chosen(cell)`, and `select_cell` selects every row of a cell."""

    cell_chosen = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows_of: dict[int, list[QTreeWidgetItem]] = {}
        self._selecting = False
        self.title = QLabel("Differing records", self)
        self.title.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["cell", "record", "expected", "got"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        self.tree.currentItemChanged.connect(self._current_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.tree)

    def set_message(self, text: str) -> None:
        self.tree.clear()
        self.rows_of = {}
        self.title.setText(text)

    def select_cell(self, cell: int) -> None:
        """Select every row of `cell` (quietly: no `cell_chosen`) and scroll to the first."""
        rows = self.rows_of.get(cell, [])
        self._selecting = True
        try:
            self.tree.clearSelection()
            for item in rows:
                item.setSelected(True)
            if rows:
                self.tree.setCurrentItem(rows[0], 0, self.tree.selectionModel().SelectionFlag.Select)
                self.tree.scrollToItem(rows[0], QTreeWidget.ScrollHint.PositionAtCenter)
        finally:
            self._selecting = False

    def _current_changed(self, current: QTreeWidgetItem | None, _previous) -> None:
        if current is not None and not self._selecting:
            self.cell_chosen.emit(int(current.data(0, Qt.ItemDataRole.UserRole)))

    def set_diffs(
        self, diffs: list[RecordDiff], width: int, tick: int, items: dict[int, str] | None = None
    ) -> None:
        """`items` names item types (the scenario's `item` lines): "gear (5)", else "type 5"."""
        self.tree.clear()
        self.rows_of = {}
        names = items or {}

        def named(t: int) -> str:
            return f"{names[t]} ({t})" if t in names else f"type {t}"

        count = len(diffs)
        self.title.setText(
            f"Tick {tick:,}: the factories agree"
            if not count
            else f"Tick {tick:,}: {count:,} differing record{'s' if count != 1 else ''} "
            f"in {len({d.cell for d in diffs}):,} cells"
        )
        items = []
        for d in diffs[:MAX_ROWS]:
            low = key_low(d.key)
            what = KIND_NAMES.get(d.kind, f"kind {d.kind}")
            if d.kind == Kind.BELT_ITEM:
                what += f" slot {low >> 8}: {named(low & 255)}"
            elif d.kind == Kind.ASSEMBLER:
                what += f" {low}"
            else:
                what += f": {named(low & 255)}"
            item = QTreeWidgetItem(
                [
                    f"({d.cell % width}, {d.cell // width})",
                    what,
                    "—" if d.expected is None else f"{d.expected:,}",
                    "—" if d.got is None else f"{d.got:,}",
                ]
            )
            item.setToolTip(1, f"key {d.key:#018x}")
            item.setData(0, Qt.ItemDataRole.UserRole, d.cell)
            self.rows_of.setdefault(d.cell, []).append(item)
            items.append(item)
        self._selecting = True
        self.tree.addTopLevelItems(items)
        self._selecting = False
        for column in range(4):
            self.tree.resizeColumnToContents(column)
