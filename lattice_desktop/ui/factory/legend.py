"""The legend under the canvas: every item type of the scenario by name, then entities.

One word-wrapped label, so a scenario with many or long item names wraps onto more lines
instead of forcing the window wider than the screen."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

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


def _entry(colour: str, text: str) -> str:
    """A swatch and its name, held together: the line may break only between entries. The
    swatch sits on a grey ground so that a near-white item shows on a light window too."""
    name = html.escape(text).replace(" ", "&nbsp;")
    return f"<span style='color:{colour}; background:#6B6F78'>■</span>&nbsp;{name}"


class Legend(QLabel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setContentsMargins(6, 2, 6, 2)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_scenario(self, scenario: Scenario | None) -> None:
        if scenario is None:
            self.clear()
            self.setToolTip("")
            return
        types = item_types(scenario)
        names = {t: scenario.items.get(t, f"item {t}") for t in types}
        entries = [_entry(pal.item_hex(t), names[t]) for t in types[:MAX_ITEMS]]
        if len(types) > MAX_ITEMS:
            entries.append(f"+{len(types) - MAX_ITEMS}&nbsp;more")
        lut = pal.LUT
        for name, code in pal.ENTITY_LEGEND:
            r, g, b = (int(v) for v in lut[code, :3])
            entries.append(_entry(f"#{r:02X}{g:02X}{b:02X}", name))
        self.setText("&nbsp;&nbsp; ".join(entries))
        self.setToolTip("\n".join(f"{names[t]}: item type {t}" for t in types))
