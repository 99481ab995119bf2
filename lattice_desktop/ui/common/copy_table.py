"""A read-only table whose selection copies as tab-separated exact values (Ctrl+C or
the context menu), and which can size itself to its rows inside a scrolling page."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QTableView, QWidget

from lattice_desktop.ui.common.delegates import COPY_ROLE


class CopyTable(QTableView):
    def __init__(self, parent: QWidget | None = None, *, fit_rows: bool = False) -> None:
        super().__init__(parent)
        self.fit_rows = fit_rows
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setHighlightSections(False)
        copy = QAction("Copy", self)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self.copy_selection)
        self.addAction(copy)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        if fit_rows:
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def selection_text(self) -> str:
        indexes = sorted(self.selectedIndexes(), key=lambda i: (i.row(), i.column()))
        if not indexes:
            return ""
        model = self.model()
        columns = sorted({i.column() for i in indexes})
        header = "\t".join(str(model.headerData(c, Qt.Orientation.Horizontal)) for c in columns)
        rows: dict[int, dict[int, str]] = {}
        for i in indexes:
            value = i.data(COPY_ROLE)
            if value is None:
                value = i.data(Qt.ItemDataRole.DisplayRole)
            rows.setdefault(i.row(), {})[i.column()] = "" if value is None else str(value)
        lines = ["\t".join(cells.get(c, "") for c in columns) for _r, cells in sorted(rows.items())]
        return "\n".join([header, *lines])

    def copy_selection(self) -> None:
        text = self.selection_text()
        if text:
            QApplication.clipboard().setText(text)

    def fit_height(self) -> None:
        """Show every row without an inner scroll bar (the page scrolls instead)."""
        if not self.fit_rows:
            return
        model = self.model()
        rows = model.rowCount() if model is not None else 0
        height = self.horizontalHeader().height() + 2 * self.frameWidth()
        height += rows * self.verticalHeader().defaultSectionSize()
        if self.horizontalScrollBar().isVisible():
            height += self.horizontalScrollBar().height()
        self.setFixedHeight(max(height, self.horizontalHeader().height() + 8))
