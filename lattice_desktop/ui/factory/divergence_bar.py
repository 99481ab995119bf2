"""The bar over the map of a wrong run: previous/next differing cell, previous/next
divergent snapshot, the heatmap toggle, and what is known of where the run went wrong."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from lattice_desktop.ui.factory.palette import HEAT_RGBA

KEYS = {
    "previous_cell": "Shift+N",
    "next_cell": "N",
    "previous_snapshot": "Shift+D",
    "next_snapshot": "D",
    "heatmap": "H",
    "first_tick": "T",
    "next_divergence": "P",
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
            "◀ snapshot ✗",
            f"Previous divergent snapshot: one whose checksums differ ({KEYS['previous_snapshot']})",
        )
        self.next_snapshot = self._button(
            "snapshot ✗ ▶", f"Next divergent snapshot: one whose checksums differ ({KEYS['next_snapshot']})"
        )
        self.heatmap = self._button(
            "Heatmap", f"Colour differing cells by how many records differ ({KEYS['heatmap']})"
        )
        self.heatmap.setCheckable(True)
        self.heat_legend = QLabel(heat_legend(), self)
        self.heat_legend.setObjectName("heatmapLegend")
        self.heat_legend.setTextFormat(Qt.TextFormat.RichText)
        self.heat_legend.setToolTip("The heatmap's scale: how many records differ in a cell")
        self.heat_legend.hide()
        self.heatmap.toggled.connect(self.heat_legend.setVisible)
        self.first_tick = self._button(
            "First wrong tick",
            f"Go to the first tick whose state departs from the reference ({KEYS['first_tick']})",
        )
        self.first_tick.setEnabled(False)
        self.hunt = self._button(
            "Next divergence ▶",
            "Play from here to the next tick where the submission's state parts from the reference's, "
            f"tick by tick, not only at snapshots ({KEYS['next_divergence']}; again or Esc stops)",
        )
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
        for widget in (self.previous_snapshot, self.next_snapshot, self.heatmap, self.first_tick, self.hunt):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(0)
        layout.addLayout(buttons)
        news = QHBoxLayout()
        news.addWidget(self.heat_legend)
        news.addWidget(self.status, 1)
        layout.addLayout(news)

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

    def show_uncompared(self, why: str) -> None:
        """The tick drawn has not been compared: say so (never "no differing cells")."""
        self.cell_label.setText(why)
        self.previous_cell.setEnabled(False)
        self.next_cell.setEnabled(False)


def heat_legend() -> str:
    """The heatmap's scale as swatches: differing records per cell, 1 to 4 or more (light to
    dark, so it reads without colour too)."""
    swatches = []
    for count, (r, g, b, _) in enumerate(HEAT_RGBA[1:].tolist(), start=1):
        label = f"{count}+" if count == len(HEAT_RGBA) - 1 else str(count)
        swatches.append(
            f"<span style='background:#{r:02X}{g:02X}{b:02X}; color:#000'>&nbsp;{label}&nbsp;</span>"
        )
    return "records per cell " + "".join(swatches)
