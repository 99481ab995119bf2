"""Playing the Factory tab's replay at a speed in ticks a second, and playing to the next
divergence (P).

Play forks the playback's simulation at the tick drawn and steps it on a worker
(`PlayAhead`) at most the speed asked; each state reaches the map as soon as the one
before has been drawn, so the screen shows every state it can keep up with, and the tick
box, the bookmarks and the panes always speak of the state drawn. The transport's status
says which engine draws and how fast the drawn tick moves.

P: both engines run ahead of the screen on a worker, with a checksum after every tick
(`divergence_hunt`), while the map stays where it is and answers; the bar says how far the
comparison has got, P or Esc stops it, and the tab then shows the tick found with its first
differing cell."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThreadPool, QTimer, Slot

from lattice_desktop.lattice.divergence import Divergence
from lattice_desktop.lattice.play_ahead import PlayAhead
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.services.divergence_hunt import hunt_divergence
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.tasks import Task
from lattice_desktop.work import Step, Work

if TYPE_CHECKING:
    from lattice_desktop.ui.factory.controls import FactoryControls

FRAME_MS = 100  # how often the status's rate is brought up to date while playing
RATE_SECONDS = 2.0  # the rate shown is over about this many seconds of drawn states


class Player(QObject):
    def __init__(self, tab: FactoryControls, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tab = tab
        self.timer = QTimer(self, interval=FRAME_MS)  # active while playing
        self.timer.timeout.connect(self._frame)
        # Play has a thread of its own: in the shared pool it would queue behind the keyframe
        # walk and the tasks waiting for the census's and the checksums' child processes.
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._pool.setStackSize(tasks.WORKER_STACK)
        self._playing: Work | None = None  # the play under way
        self.ahead: PlayAhead | None = None
        self.last_engine: str | None = None
        self._drawn: list[tuple[float, int]] = []  # (when, tick) of the states drawn lately
        self._hunt = tasks.Background(self)

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def toggle(self) -> None:
        tab = self.tab
        if self.playing:
            self.stop()
            return
        playback = tab.playback
        if playback is None:
            return
        start = 0 if tab.tick >= playback.ticks else tab.tick  # from the tick asked for last
        tab.loader.drop_seeks()  # a seek still coming would draw a tick behind the play
        confirmed = tab.confirmation
        fast = (
            confirmed.fast
            if confirmed is not None
            and confirmed.parted_at is None
            and confirmed.confirmed_to >= max(1, start)
            else None
        )
        self.ahead = ahead = PlayAhead(playback, start, speed=tab.transport.ticks_per_second, engine=fast)
        self.last_engine = fast  # what the last play stepped with (None: the playback's engine)
        task = Task(ahead.run, work=True)
        task.signals.progress.connect(lambda step, ahead=ahead: self._played(step, ahead))
        playback.paused = True  # the keyframe walk waits while playing
        task.signals.done.connect(self._ended)
        task.signals.failed.connect(self._failed)
        self._cancel_play()
        assert task.work is not None
        self._playing = task.work
        tasks.start(task, self._pool)
        self._drawn = []
        self.timer.start()
        tab.navigator.set_playing(True)
        tab.transport.set_playing(True)
        self._frame()

    def _cancel_play(self) -> None:
        if self._playing is not None:
            self._playing.cancel()
            self._playing = None

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Wait for the play thread (cancelled first by `stop`): closing must not outlive it."""
        return self._pool.waitForDone(timeout_ms)

    def set_speed(self, ticks_per_second: int) -> None:
        if self.ahead is not None:
            self.ahead.speed = float(ticks_per_second)

    def stop(self) -> None:
        """Stop where it is; the navigator then compares the tick it landed on."""
        self._cancel_play()
        if self.ahead is not None:
            self.ahead.playback.paused = False
        self.ahead = None
        was = self.timer.isActive()
        self.timer.stop()
        self.tab.navigator.set_playing(False)
        self.tab.transport.set_playing(False)
        if was:
            self.tab.transport.status.setText("")
            drawn = self.tab.canvas.state
            if drawn is None or drawn.tick != self.tab.tick:  # stopped before its first state
                self.tab.show_tick(self.tab.tick)

    def show_played(self, state: FactoryState) -> None:
        """A state the play stepped to: drawn, and every pane follows it."""
        tab = self.tab
        tab.tick = tab.navigator.tick = state.tick
        tab.transport.show_tick(state.tick)
        tab.transport.bookmarks.set_tick(state.tick)
        tab.navigator.show_state(state)

    def _played(self, step: Step, ahead: PlayAhead) -> None:
        state = step.item
        if (
            not isinstance(state, FactoryState)
            or ahead is not self.ahead
            or ahead.playback is not self.tab.playback
        ):
            return
        self.show_played(state)
        self._drawn.append((time.perf_counter(), state.tick))
        ahead.shown()

    @Slot(object)
    def _ended(self, _tick: int) -> None:
        if self.ahead is not None:
            self.stop()

    @Slot(str, str)
    def _failed(self, message: str, trace: str) -> None:
        self.stop()
        self.tab.transport.status.setText(f"⚠ playing stopped: {message}")
        self.tab.transport.status.setToolTip(trace or message)

    def rate(self) -> float:
        """Ticks a second the drawn tick has moved lately."""
        now = time.perf_counter()
        recent = [(t, k) for t, k in self._drawn if now - t <= RATE_SECONDS]
        self._drawn = recent
        if len(recent) < 2 or recent[-1][0] <= recent[0][0]:
            return 0.0
        return (recent[-1][1] - recent[0][1]) / (recent[-1][0] - recent[0][0])

    def drawn_by(self) -> str:
        """Which engine draws the states, why it is trusted, and for one confirmed against
        the reference as it goes, how far it has been (and whether the tick drawn is past it)."""
        tab, ahead, confirmed = self.tab, self.ahead, self.tab.confirmation
        if tab.playback is None:
            return ""
        if ahead is not None and ahead.engine is not None and confirmed is not None:
            text = f"{confirmed.name}, confirmed against the reference to tick {confirmed.confirmed_to:,}"
            if tab.tick > confirmed.confirmed_to:
                text += f" — ⚠ tick {tab.tick:,} not confirmed yet"
            return text
        text = tab.playback.engine_name
        if confirmed is not None and confirmed.parted_at is not None:
            return f"{text} ({confirmed.name} parted from it at tick {confirmed.parted_at:,})"
        if confirmed is not None:
            return f"{text} ({confirmed.name} confirmed to tick {confirmed.confirmed_to:,} so far)"
        return text

    def plays_with(self) -> str:
        """For a file whose fast engine has been checked against the reference: which engine
        Play will use, and why ("" when there was nothing to check)."""
        confirmed = self.tab.confirmation
        if confirmed is None:
            return ""
        if confirmed.parted_at is not None:
            return f"{confirmed.name} parted from it at tick {confirmed.parted_at:,}: Play uses the reference"
        return f"Play: {confirmed.name}, confirmed to tick {confirmed.confirmed_to:,}"

    def heading(self, label: str, source: str) -> tuple[str, str]:
        """A file's heading once its checksums are in (`label` then where they came from,
        unless that engine is named already, and `plays_with`) and its tooltip, the long form:
        short enough to sit beside the scenario picker in a 1366-pixel window."""
        playback, confirmed = self.tab.playback, self.tab.confirmation
        engine = playback.engine_name if playback is not None else ""
        said = source == f"checksums from the {engine}"
        note = " · ".join(filter(None, [label, "" if said else source, self.plays_with()]))
        why = [note, source]
        if confirmed is not None and confirmed.parted_at is None:
            why.append(
                f"Play uses {confirmed.name}: its checksums matched the reference's at every "
                f"snapshot to tick {confirmed.confirmed_to:,}"
            )
        return note, " · ".join(filter(None, why))

    def _frame(self) -> None:
        playback = self.tab.playback
        if playback is None or self.ahead is None:
            return
        self.tab.transport.status.setText(f"playing {self.rate():,.0f} ticks/s · drawn by {self.drawn_by()}")

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
        snapshots = tab.snapshots
        differs = snapshots.next_differing(tab.tick) if snapshots is not None else None
        task = Task(hunt_divergence, submission, tab.playback, tab.tick, work=True, differs=differs)
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
