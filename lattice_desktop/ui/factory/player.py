"""Playing the Factory tab's replay at a speed in ticks a second: a frame timer that
advances by the ticks owed since the last frame, so a slow seek makes the next step longer
rather than the playback slower than asked (at most a second's worth is carried).

And playing to the next divergence (P): both engines run ahead of the screen on a worker,
with a checksum after every tick (`divergence_hunt`), while the map stays where it is and
answers; the bar says how far the comparison has got, P or Esc stops it, and the tab then
shows the tick found with its first differing cell."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Slot

from lattice_desktop.lattice.divergence import Divergence
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.services.divergence_hunt import hunt_divergence
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.tasks import Task
from lattice_desktop.work import Step

if TYPE_CHECKING:
    from lattice_desktop.ui.factory.tab import FactoryTab

FRAME_MS = 33


class Player(QObject):
    def __init__(self, tab: FactoryTab) -> None:
        super().__init__(tab)
        self.tab = tab
        self.timer = QTimer(self, interval=FRAME_MS)
        self.timer.timeout.connect(self._frame)
        self._clock = QElapsedTimer()
        self._owed = 0.0  # ticks played but not yet shown (speeds below a tick a frame)
        self._hunt = tasks.Background(self)

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def toggle(self) -> None:
        tab = self.tab
        if self.playing:
            self.stop()
        elif tab.playback is not None:
            if tab.tick >= tab.playback.ticks:
                tab.show_tick(0)
            self.timer.start()
            self._clock.start()
            self._owed = 0.0
            tab.navigator.set_playing(True)
            tab.transport.set_playing(True)

    def stop(self) -> None:
        """Stop where it is; the navigator then compares the tick it landed on."""
        self.timer.stop()
        self.tab.navigator.set_playing(False)
        self.tab.transport.set_playing(False)

    def _frame(self) -> None:
        tab = self.tab
        if tab.playback is None:
            return
        speed = tab.transport.ticks_per_second
        self._owed = min(self._owed + speed * self._clock.restart() / 1000, max(1.0, speed))
        if tab.loader.busy:
            return
        if tab.tick >= tab.playback.ticks:
            self.stop()
            return
        step = int(self._owed)
        if step:
            self._owed -= step
            tab.show_tick(tab.tick + step)

    # --- to the next divergence -----------------------------------------------------------

    @property
    def hunting(self) -> bool:
        return self._hunt.work is not None

    def hunt(self) -> None:
        """Start the search for the next divergence from the tick shown (or stop it)."""
        tab, bar = self.tab, self.tab.bar
        if self.hunting:
            self.stop_hunt("Stopped looking for the next divergence.")
            return
        submission = tab.navigator.submission
        if tab.playback is None or submission is None:
            bar.status.setText("Playing to the next divergence needs the submission's records export.")
            return
        self.stop()
        task = Task(hunt_divergence, submission, tab.playback, tab.tick, work=True)
        task.signals.progress.connect(self._hunt_progress)
        task.signals.done.connect(self._hunt_done)
        task.signals.failed.connect(self._hunt_failed)
        self._hunt.start(task)
        bar.hunt.setText("■ Stop")
        bar.status.setText(f"Looking for the next divergence after tick {tab.tick:,}… (P or Esc stops)")

    def stop_hunt(self, why: str = "") -> None:
        if self.hunting:
            self._hunt.cancel()
            if why:
                self.tab.bar.status.setText(why)
        self.tab.bar.hunt.setText("Next divergence ▶")

    @Slot(object)
    def _hunt_progress(self, step: Step) -> None:
        if self.hunting and step.message:
            self.tab.bar.status.setText(f"Looking for the next divergence: {step.message}… (P or Esc stops)")

    @Slot(object)
    def _hunt_done(self, result: tuple[Playback, int, Divergence | None]) -> None:
        playback, start, found = result
        tab = self.tab
        if not self.hunting or playback is not tab.playback:
            return
        self.stop_hunt()
        if found is None:
            tab.bar.status.setText(
                f"No divergence after tick {start:,}: "
                f"the states do not part again up to tick {playback.ticks:,}."
            )
            return
        tab.bar.status.setText(
            f"Next divergence: tick {found.tick:,} (agrees at {found.agreed:,}) · "
            f"{found.extent(playback.scenario.width)}"
        )
        tab.navigator.focus_pending = True
        tab.navigator.seek.emit(found.tick)

    @Slot(str, str)
    def _hunt_failed(self, message: str, trace: str) -> None:
        if self.hunting:
            self.stop_hunt(f"⚠ Could not look for the next divergence: {message}")
            self.tab.bar.status.setToolTip(trace or message)
