"""docs/guide.md's Factory section names every key the Factory tab binds (keys.py's table)."""

from __future__ import annotations

import re
from pathlib import Path

from lattice_desktop.ui.factory.keys import key_table
from lattice_desktop.ui.factory.tab import FactoryTab

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"
SHOWN = {"Left": "←", "Right": "→", "-": "−"}  # how the guide writes a key


def documented_keys() -> set[str]:
    text = GUIDE.read_text()
    section = text[text.index("### Step through a factory") : text.index("### Look at any scenario file")]
    keys: set[str] = set()
    for cell in re.findall(r"^\| ([^|]+?) \|", section, re.MULTILINE):
        keys.update(part.strip() for part in cell.split(" / "))
    return keys


def test_the_guide_lists_every_key_of_the_factory_tab(qtbot):
    tab = FactoryTab()
    qtbot.addWidget(tab)
    bound = {re.sub(r"\b(Left|Right)\b", lambda m: SHOWN[m.group(1)], key) for key, _, _ in key_table(tab)}
    bound = {SHOWN.get(key, key) for key in bound}
    documented = documented_keys()
    assert bound - {"Esc"} <= documented, f"not in the guide: {sorted(bound - documented)}"
    assert "F" in documented  # the map's own key (fit), bound by the canvas
