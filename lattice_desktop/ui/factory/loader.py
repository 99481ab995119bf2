"""Seeking off the GUI thread: the newest request wins (napari's slicer pattern).

`StateLoader.request(tick)` starts a background `state_at` and makes every older,
still-running request cancel itself at its next chunk; only the newest result is
shown. A long seek reports the states it passes (`previewed`), so the canvas moves at
once instead of waiting for the run to be simulated. Meanwhile one background task walks
the run to cache keyframes, starting as soon as the playback is set.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.ui import tasks
from lattice_desktop.ui.tasks import Task


@dataclass(frozen=True)
class SeekState:
    """A state loaded (or passed on the way) for the request numbered `generation`."""

    generation: int
    state: FactoryState


def _state_job(playback: Playback, generation: int, tick: int, current, report) -> SeekState:
    state = playback.state_at(tick, cancel=lambda: current() != generation,
                              preview=lambda passed: report(SeekState(generation, passed)))
    return SeekState(generation, state)


def _prepare_job(playback: Playback, alive, report) -> None:
    playback.prepare(cancel=lambda: not alive(), progress=report)


class StateLoader(QObject):
    """Loads states of one `Playback`; emits `loaded(state)` for the newest request only."""

    loaded = Signal(object)
    previewed = Signal(object, int)  # a state on the way to the requested tick, that tick
    failed = Signal(str, str)
    prepared = Signal(float)  # share of the run with keyframes

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.playback: Playback | None = None
        self._generation = 0
        self._session = 0  # bumped when the playback changes: stops the keyframe walk
        self._busy = 0
        self.requested: int | None = None

    @property
    def busy(self) -> bool:
        return self._busy > 0

    def set_playback(self, playback: Playback | None) -> None:
        self._session += 1
        self._generation += 1
        self.playback = playback
        self.requested = None
        if playback is not None:
            session = self._session
            task = Task(_prepare_job, playback, lambda: self._session == session, progress=True)
            task.signals.progress.connect(self._on_prepared)
            task.signals.failed.connect(self.failed)
            tasks.start(task)

    def request(self, tick: int) -> None:
        if self.playback is None:
            return
        self._generation += 1
        self.requested = tick
        self._busy += 1
        task = Task(_state_job, self.playback, self._generation, tick, lambda: self._generation,
                    progress=True)
        task.signals.progress.connect(self._on_preview)
        task.signals.done.connect(self._on_done)
        task.signals.failed.connect(self._on_failed)
        task.signals.cancelled.connect(self._on_cancelled)
        tasks.start(task)

    def stop(self) -> None:
        """Forget the playback: running tasks cancel themselves at their next chunk."""
        self.set_playback(None)

    @Slot(object)
    def _on_done(self, result: SeekState) -> None:
        self._busy -= 1
        if result.generation == self._generation:
            self.loaded.emit(result.state)

    @Slot(object)
    def _on_preview(self, result: SeekState) -> None:
        if result.generation == self._generation and self.requested is not None:
            self.previewed.emit(result.state, self.requested)

    @Slot(str, str)
    def _on_failed(self, message: str, trace: str) -> None:
        self._busy -= 1
        self.failed.emit(message, trace)

    @Slot()
    def _on_cancelled(self) -> None:
        self._busy -= 1

    @Slot(object)
    def _on_prepared(self, fraction: float) -> None:
        self.prepared.emit(fraction)
