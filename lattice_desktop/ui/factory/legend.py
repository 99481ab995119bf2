"""The legend under the canvas: every item type of the scenario by name, then entities."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.ui.factory import palette as pal

MAX_ITEMS = 12


def item_types(scenario: Scenario) -> list[int]:
    """The item types a scenario names or uses, in order."""
    types = set(scenario.items)
    types.update(s.type for s in scenario.sources.values())
    for recipe in scenario.recipes.values():
        types.add(recipe.product)
        types.update(k for k, _ in recipe.inputs)
    return sorted(types)


def _swatch(colour: str) -> QLabel:
    pixmap = QPixmap(11, 11)
    pixmap.fill(QColor(colour))
    label = QLabel()
    label.setPixmap(pixmap)
    return label


class Legend(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 2)
        self._layout.setSpacing(4)

    def set_scenario(self, scenario: Scenario | None) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        if scenario is None:
            return
        types = item_types(scenario)
        for t in types[:MAX_ITEMS]:
            self._entry(pal.item_hex(t), scenario.items.get(t, f"item {t}"), f"item type {t}")
        if len(types) > MAX_ITEMS:
            more = QLabel(f"+{len(types) - MAX_ITEMS} more")
            more.setToolTip(", ".join(scenario.items.get(t, f"item {t}") for t in types[MAX_ITEMS:]))
            self._layout.addWidget(more)
        self._layout.addSpacing(16)
        lut = pal.LUT
        for name, code in pal.ENTITY_LEGEND:
            r, g, b = (int(v) for v in lut[code, :3])
            self._entry(f"#{r:02X}{g:02X}{b:02X}", name, None)
        self._layout.addStretch(1)

    def _entry(self, colour: str, text: str, tip: str | None) -> None:
        swatch = _swatch(colour)
        label = QLabel(text)
        if tip:
            swatch.setToolTip(tip)
            label.setToolTip(tip)
        self._layout.addWidget(swatch)
        self._layout.addWidget(label)
        self._layout.addSpacing(8)
