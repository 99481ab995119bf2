"""The transport bar: the scrub timeline over ⏮ ◀ ▶/⏸ ▶| ⏭, a speed in ticks a second
(1 to 1,000), a tick box and the bookmarks."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.ui.factory.bookmarks import Bookmarks
from lattice_desktop.ui.factory.timeline import Timeline

SPEED = (1, 1000, 30)  # ticks a second: least, most, at first


class TransportBar(QWidget):
    """Emits `seek(tick)` when the user scrubs or types a tick; the buttons are public
    so the tab wires them to its playback."""

    seek = Signal(int)

    def __init__(self, parent=None, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.timeline = Timeline(self)
        self.bookmarks = Bookmarks(settings, self)
        icons = QStyle.StandardPixmap
        self.first = self._button("⏮", icons.SP_MediaSkipBackward, "Previous snapshot (Shift+←)")
        self.back = self._button("◀", icons.SP_MediaSeekBackward, "One tick back (←)")
        self.play = self._button("▶", icons.SP_MediaPlay, "Play / pause (Space)")
        self.play.setCheckable(True)
        self.forward = self._button("▶|", icons.SP_MediaSeekForward, "One tick forward (→)")
        self.last = self._button("⏭", icons.SP_MediaSkipForward, "Next snapshot (Shift+→)")
        self.speed = QSpinBox(self)
        self.speed.setRange(*SPEED[:2])
        self.speed.setValue(SPEED[2])
        self.speed.setSuffix(" ticks/s")
        self.speed.setGroupSeparatorShown(True)
        self.speed.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
        self.speed.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.speed.setToolTip("Playback speed, 1 to 1,000 ticks a second (+ and − change it)")
        self.tick_box = QSpinBox(self)
        self.tick_box.setGroupSeparatorShown(True)
        self.tick_box.setKeyboardTracking(False)
        self.tick_box.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.tick_box.setMinimumWidth(110)
        self.tick_box.setToolTip("Go to tick (Home: start, End: last tick)")
        self.total = QLabel("/ 0", self)
        self.total.setMinimumWidth(80)
        self.status = QLabel(self)
        self.status.setObjectName("playbackStatus")
        self.status.setStyleSheet("color: palette(mid);")

        buttons = QHBoxLayout()
        buttons.setSpacing(2)
        for widget in (self.first, self.back, self.play, self.forward, self.last):
            buttons.addWidget(widget)
        buttons.addSpacing(12)
        buttons.addWidget(self.speed)
        buttons.addSpacing(12)
        buttons.addWidget(QLabel("tick", self))
        buttons.addWidget(self.tick_box)
        buttons.addWidget(self.total)
        buttons.addWidget(self.bookmarks)
        buttons.addStretch(1)
        buttons.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 4)
        layout.setSpacing(0)
        layout.addWidget(self.timeline)
        layout.addLayout(buttons)

        self.timeline.sliderMoved.connect(self.seek)
        self.timeline.actionTriggered.connect(self._slider_action)
        self.tick_box.valueChanged.connect(self._typed)
        self._updating = False

    def _button(self, text: str, icon: QStyle.StandardPixmap, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)  # the accessible name; the icon is what shows
        button.setIcon(self.style().standardIcon(icon))
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setMinimumWidth(30)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        return button

    @property
    def ticks_per_second(self) -> int:
        return self.speed.value()

    def change_speed(self, steps: int) -> None:
        self.speed.stepBy(steps)

    def set_range(self, ticks: int) -> None:
        self._updating = True
        self.timeline.setRange(0, ticks)
        self.tick_box.setRange(0, ticks)
        self.total.setText(f"/ {ticks:,}")
        self._updating = False

    def clear(self) -> None:
        """No scenario: no ticks, nothing to play."""
        self.set_range(0)
        self.total.setText("/ —")
        self.show_tick(0)
        self.set_playing(False)
        self.status.setText("")
        self.timeline.set_snapshots(None)
        self.timeline.set_first_wrong(None)
        self.timeline.set_prepared(0.0)
        self.bookmarks.set_place(None)

    def show_tick(self, tick: int) -> None:
        """Reflect the tick on screen without emitting `seek`."""
        self._updating = True
        if not self.timeline.isSliderDown():
            self.timeline.setValue(tick)
        self.tick_box.setValue(tick)
        self._updating = False

    def set_playing(self, playing: bool) -> None:
        self.play.setChecked(playing)
        self.play.setText("⏸" if playing else "▶")
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play.setIcon(self.style().standardIcon(icon))

    def _typed(self, tick: int) -> None:
        if not self._updating:
            self.seek.emit(tick)

    def _slider_action(self, _action: int) -> None:
        # Clicks on the groove (page steps) seek too; drags arrive through sliderMoved.
        if not self._updating and not self.timeline.isSliderDown():
            self.seek.emit(self.timeline.sliderPosition())
