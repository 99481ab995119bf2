"""The Factory tab's keys, in one table: bound here, listed by the Help menu (through each
shortcut's whatsThis) and in docs/guide.md (a test checks the guide names every one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from lattice_desktop.ui.factory.divergence_bar import KEYS

if TYPE_CHECKING:
    from lattice_desktop.ui.factory.controls import FactoryControls


def key_table(tab: FactoryControls) -> list[tuple[str, str, Callable[[], object]]]:
    """(key, what it does, the slot) for every key of the tab."""
    nav, tools, marks, speed = tab.navigator, tab.tools, tab.transport.bookmarks, tab.transport.change_speed
    ticks = lambda: tab.playback.ticks if tab.playback else 0  # noqa: E731
    return [
        ("Space", "Play / pause", tab.toggle_play),
        ("Left", "One tick back", lambda: tab.step_ticks(-1)),
        ("Right", "One tick forward", lambda: tab.step_ticks(1)),
        ("Shift+Left", "Previous snapshot", lambda: tab.step_snapshot(-1)),
        ("Shift+Right", "Next snapshot", lambda: tab.step_snapshot(1)),
        ("Home", "First tick", lambda: tab.show_tick(0)),
        ("End", "Last tick", lambda: tab.show_tick(ticks())),
        (KEYS["next_snapshot"], "Next divergent snapshot", tab.next_divergence),
        (KEYS["previous_snapshot"], "Previous divergent snapshot", lambda: nav.step_divergent_snapshot(-1)),
        (KEYS["next_cell"], "Next differing cell", lambda: nav.step_cell(1)),
        (KEYS["previous_cell"], "Previous differing cell", lambda: nav.step_cell(-1)),
        (KEYS["heatmap"], "Divergence heatmap on / off", tab.bar.heatmap.toggle),
        (KEYS["first_tick"], "First wrong tick", nav.go_to_first_tick),
        (KEYS["next_divergence"], "Play to the next divergence (again: stop)", tab.player.hunt),
        ("Esc", "Stop playing to the next divergence", lambda: tab.player.stop_hunt("Stopped.")),
        ("G", "Go to a cell (x,y)", tools.goto.setFocus),
        ("W", "Why? — trace a differing cell back to its first wrong decision", tab.why.why_here),
        ("F3", "Next match of Find", lambda: tools.step(1)),
        ("Shift+F3", "Previous match of Find", lambda: tools.step(-1)),
        ("B", "Bookmark this tick / remove its bookmark", marks.toggle),
        ("]", "Next bookmark", lambda: marks.step(1)),
        ("[", "Previous bookmark", lambda: marks.step(-1)),
        ("+", "Faster", lambda: speed(1)),
        ("-", "Slower", lambda: speed(-1)),
    ]


def bind_keys(tab: FactoryControls, owner: QWidget) -> None:
    """Bind every key of `key_table` on `owner` (the tab's widget) and what it holds."""
    for key, what, slot in key_table(tab):  # the Help menu lists them by their whatsThis
        shortcut = QShortcut(QKeySequence(key), owner)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.setWhatsThis(what)
        shortcut.activated.connect(slot)
