"""Bookmarks on ticks, kept with the run: in QSettings under `factory/bookmarks/<key>`,
where the key is the run's id and scenario (a run is stored once and never changes) or a
scenario file's path. They live with the user's settings, not in the store: a bookmark is
the reviewer's note, not part of the graded run that other machines may share."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QMenu, QToolButton, QWidget


def bookmark_key(*, run_id: int | None, scenario: str) -> str:
    """Where one scenario's bookmarks are kept (slashes escaped: QSettings nests on them)."""
    place = f"run-{run_id}" if run_id is not None else "file"
    return f"factory/bookmarks/{place}/{scenario.replace('/', '|').replace(chr(92), '|')}"


class Bookmarks(QToolButton):
    """ "★ n" with a menu: bookmark this tick (B), then every bookmark; choosing one emits
    `seek(tick)`. `set_place` says whose bookmarks are shown, `set_tick` where the replay is."""

    seek = Signal(int)

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings or QSettings()
        self.key: str | None = None
        self.ticks: list[int] = []
        self.tick = 0
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setToolTip("Bookmarks on ticks, kept with this run (B: bookmark this tick; [ and ]: step)")
        self.setMenu(QMenu(self))
        self.menu().aboutToShow.connect(self._fill_menu)
        self._say()

    def set_place(self, key: str | None) -> None:
        self.key = key
        stored = self.settings.value(key, []) if key else []
        values = stored if isinstance(stored, list) else [stored]
        self.ticks = sorted({int(str(t)) for t in values if str(t).isdigit()})
        self._say()

    def set_tick(self, tick: int) -> None:
        self.tick = tick

    def toggle(self) -> None:
        """Bookmark the tick shown, or remove its bookmark."""
        if self.key is None:
            return
        ticks = set(self.ticks)
        ticks.symmetric_difference_update({self.tick})
        self.ticks = sorted(ticks)
        self.settings.setValue(self.key, [str(t) for t in self.ticks])
        self._say()

    def step(self, direction: int) -> None:
        """The next/previous bookmark from the tick shown."""
        after = [t for t in self.ticks if (t > self.tick if direction > 0 else t < self.tick)]
        if after:
            self.seek.emit(after[0] if direction > 0 else after[-1])

    def _say(self) -> None:
        self.setText(f"★ {len(self.ticks)}")
        self.setEnabled(self.key is not None)

    def _fill_menu(self) -> None:
        menu = self.menu()
        menu.clear()
        marked = self.tick in self.ticks
        menu.addAction(
            f"{'Remove the bookmark on' if marked else 'Bookmark'} tick {self.tick:,}\tB", self.toggle
        )
        if self.ticks:
            menu.addSeparator()
        for tick in self.ticks:
            menu.addAction(f"tick {tick:,}", partial(self.seek.emit, tick))
