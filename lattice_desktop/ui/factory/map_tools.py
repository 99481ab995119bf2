"""The row over the map: Go to a cell by its coordinates, and Find an item type or an entity
kind on the tick shown, stepping through the matches (the count beside them). A query that
names nothing says why, in place; the map itself is steered through `canvas.focus_cell`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QToolButton, QWidget

from lattice_desktop.lattice.map_search import SearchError, find_cells, parse_cell
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.ui.factory.canvas import FactoryCanvas

SPAN = 40.0  # cells across the view when a match is shown


class MapTools(QWidget):
    def __init__(self, canvas: FactoryCanvas, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = canvas
        self.matches = np.zeros(0, np.int64)
        self.index: int | None = None
        self._query = ""
        self._tick: int | None = None
        self.goto = self._edit("x,y", "Go to a cell: x,y, then Enter (G)", 90)
        self.query = self._edit(
            "item or entity", "Find an item type (name or number) or an entity kind (F3)", 150
        )
        self.previous = self._button("◀", "Previous match (Shift+F3)", lambda: self.step(-1))
        self.next = self._button("▶", "Next match (F3)", lambda: self.step(1))
        self.count = QLabel(self)
        self.message = QLabel(self)
        self.message.setObjectName("mapToolsMessage")
        self.message.setStyleSheet("color: #E5484D;")
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.goto.returnPressed.connect(self.go_to)
        self.query.returnPressed.connect(lambda: self.step(1))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.setSpacing(4)
        row: tuple[QWidget, ...] = (QLabel("Go to", self), self.goto, QLabel("  Find", self), self.query)
        for widget in (*row, self.previous, self.next, self.count):
            layout.addWidget(widget)
        layout.addWidget(self.message, 1)

    def _edit(self, placeholder: str, tip: str, width: int) -> QLineEdit:
        edit = QLineEdit(self)
        edit.setPlaceholderText(placeholder)
        edit.setToolTip(tip)
        edit.setClearButtonEnabled(True)
        edit.setFixedWidth(width)
        return edit

    def _button(self, text: str, tip: str, slot: Callable[[], None]) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(slot)
        return button

    def go_to(self) -> None:
        """Centre the cell typed in the Go-to box and ring it."""
        scenario = self.canvas.scenario
        if scenario is None:
            return
        try:
            cell = parse_cell(self.goto.text(), scenario)
        except SearchError as error:
            self.message.setText(f"⚠ {error}")
            return
        self.message.setText("")
        self.canvas.focus_cell(cell, span=SPAN)

    def step(self, direction: int) -> None:
        """The next/previous match of the Find box on the tick shown (searching it again
        when the query or the tick changed)."""
        state = self.canvas.state
        if self.canvas.scenario is None or state is None:
            return
        stale = self.query.text() != self._query or state.tick != self._tick
        if stale and not self._search(state):
            return
        if not len(self.matches):
            return
        if self.index is None:
            self.index = 0 if direction > 0 else len(self.matches) - 1
        else:
            self.index = (self.index + direction) % len(self.matches)
        self.canvas.focus_cell(int(self.matches[self.index]), span=SPAN)
        self._say()

    def _search(self, state: FactoryState) -> bool:
        assert self.canvas.scenario is not None
        self._query, self._tick, self.index = self.query.text(), state.tick, None
        try:
            self.matches, self._what = find_cells(self._query, self.canvas.scenario, state)
        except SearchError as error:
            self.matches, self._what = np.zeros(0, np.int64), ""
            self.count.setText("")
            self.message.setText(f"⚠ {error}")
            return False
        self.message.setText("")
        self._say()
        return True

    def _say(self) -> None:
        n = len(self.matches)
        tick = f" at tick {self._tick:,}"
        if not n:
            self.count.setText(f"no {self._what}{tick}")
        elif self.index is None:
            self.count.setText(f"{n:,} {self._what}{tick}")
        else:
            self.count.setText(f"{self.index + 1:,} of {n:,} {self._what}{tick}")

    def clear(self) -> None:
        """Another scenario: forget the matches (the queries stay typed)."""
        self.matches, self.index, self._tick = np.zeros(0, np.int64), None, None
        self.count.setText("")
        self.message.setText("")
