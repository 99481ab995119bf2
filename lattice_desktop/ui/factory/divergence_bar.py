"""The bar over the map of a wrong run: previous/next differing cell, previous/next
divergent snapshot, the heatmap toggle, and what is known of where the run went wrong."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

KEYS = {
    "previous_cell": "Shift+N",
    "next_cell": "N",
    "previous_snapshot": "Shift+D",
    "next_snapshot": "D",
    "heatmap": "H",
    "first_tick": "T",
}


class DivergenceBar(QWidget):
    """Buttons are public; the Factory tab wires them (and the same keys) to its view."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.previous_cell = self._button("◀ cell", f"Previous differing cell ({KEYS['previous_cell']})")
        self.cell_label = QLabel("", self)
        self.cell_label.setMinimumWidth(120)
        self.next_cell = self._button("cell ▶", f"Next differing cell ({KEYS['next_cell']})")
        self.previous_snapshot = self._button(
            "◀ divergent snapshot", f"Previous snapshot whose checksums differ ({KEYS['previous_snapshot']})"
        )
        self.next_snapshot = self._button(
            "divergent snapshot ▶", f"Next snapshot whose checksums differ ({KEYS['next_snapshot']})"
        )
        self.heatmap = self._button(
            "Heatmap", f"Colour differing cells by how many records differ ({KEYS['heatmap']})"
        )
        self.heatmap.setCheckable(True)
        self.first_tick = self._button(
            "First wrong tick",
            f"Go to the first tick whose state departs from the reference ({KEYS['first_tick']})",
        )
        self.first_tick.setEnabled(False)
        self.status = QLabel("", self)
        self.status.setObjectName("divergenceStatus")
        self.status.setWordWrap(True)
        # However long the news, it wraps: it never widens the window.
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.status.setSizePolicy(policy)
        buttons = QHBoxLayout()
        buttons.setSpacing(4)
        for widget in (self.previous_cell, self.cell_label, self.next_cell):
            buttons.addWidget(widget)
        buttons.addSpacing(10)
        for widget in (self.previous_snapshot, self.next_snapshot, self.heatmap, self.first_tick):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(0)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

    def _button(self, text: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        return button

    def show_cell(self, index: int | None, count: int, where: str = "") -> None:
        self.cell_label.setText(
            "no differing cells"
            if not count
            else f"cell {index + 1:,} of {count:,} {where}"
            if index is not None
            else f"{count:,} differing cells"
        )
        self.previous_cell.setEnabled(count > 0)
        self.next_cell.setEnabled(count > 0)
