"""Seeking off the GUI thread: the newest request wins (napari's slicer pattern).

`StateLoader.request(tick)` starts a background `state_at` and cancels the `Work` of every
older, still-running request, which stops at its next chunk; only the newest result is
shown. A long seek reports the states it passes (`previewed`), so the canvas moves at
once instead of waiting for the run to be simulated. Meanwhile one background task walks
the run to cache keyframes, starting as soon as the playback is set.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.tasks import Task
from lattice_desktop.work import Step


class StateLoader(tasks.Op):
    """Loads states of one `Playback`; emits `loaded(state)` for the newest request only."""

    loaded = Signal(object)
    previewed = Signal(object, int)  # a state on the way to the requested tick, that tick
    failed = Signal(str, str)
    prepared = Signal(float)  # share of the run with keyframes

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.playback: Playback | None = None
        self._seeks = LatestQuery(self.loaded.emit, self, on_step=self._on_step)
        self._seeks.failed.connect(self.failed)
        self._walk = tasks.Background(self)  # the keyframe walk of the current playback
        self.requested: int | None = None

    @property
    def busy(self) -> bool:
        return self._seeks.busy

    def set_playback(self, playback: Playback | None) -> None:
        self._walk.cancel()
        self._seeks.forget()
        self.playback = playback
        self.requested = None
        if playback is not None:
            task = Task(playback.prepare, work=True)
            task.signals.progress.connect(self._on_prepared)
            task.signals.failed.connect(self.failed)
            self._walk.start(task)

    def request(self, tick: int) -> None:
        if self.playback is None:
            return
        self.requested = tick
        self._seeks.request(self.playback.state_at, tick, work=True)

    def drop_seeks(self) -> None:
        """Forget the seeks under way (they stop at their next chunk); the walk goes on."""
        self._seeks.forget()
        self.requested = None

    def stop(self) -> None:
        """Forget the playback: running tasks cancel themselves at their next chunk."""
        self.set_playback(None)

    def cancel(self) -> None:
        self.stop()

    def _on_step(self, step: Step) -> None:
        if isinstance(step.item, FactoryState) and self.requested is not None:
            self.previewed.emit(step.item, self.requested)

    @Slot(object)
    def _on_prepared(self, step: Step) -> None:
        self.prepared.emit(step.fraction)
