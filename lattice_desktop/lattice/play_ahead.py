"""Playing a factory forward at a speed, on a simulator of its own.

The Factory tab's Play used to ask for one far tick after another through `state_at`,
sharing the playback's one live simulation with the keyframe walk and waiting for each
state before asking for the next. `PlayAhead` instead forks the playback's simulation at
the tick shown (`Playback.fork`) and steps it tick by tick at most `speed` ticks a second,
never waiting for the screen: whenever the screen has drawn the state handed to it
(`shown`), the state just stepped to is read and decoded — on a second thread, while the
engine carries on — and reported as the item of a `Work` step. So playing costs the
engine's steps plus one records read per state drawn, and the decoding runs beside the
engine on the other core.

Plain Python, no Qt: the tab runs `run` on a worker and draws the states it reports.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from lattice_desktop.errors import Cancelled
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.simulators import Simulator, WasmSimulator, state_from_records
from lattice_desktop.work import Work

STEP_SECONDS = 0.01  # a step call covers at most about this much stepping (cancel stays quick)


class PlayAhead:
    """One play from `start` to the end of the run (or until cancelled)."""

    def __init__(
        self, playback: Playback, start: int, *, speed: float, engine: str | Path | None = None
    ) -> None:
        self.playback, self.start = playback, start
        self.engine = engine  # another engine to play with (confirmed on this run), None: the playback's
        self.speed = float(speed)  # ticks a second; the screen may change it while playing
        self._ready = threading.Event()  # the screen has drawn the last state it was given
        self._ready.set()
        self._lock = threading.Condition()
        self._pending: tuple[int, np.ndarray] | None = None  # records waiting to be decoded
        self._decoding = False
        self.stepped = start  # the last tick the engine reached
        self.started = time.perf_counter()

    def shown(self) -> None:
        """The screen drew the state it was given last: the next one may be read."""
        self._ready.set()

    def run(self, work: Work) -> int:
        """Step to the end, reporting states as they can be drawn; the last tick reached."""
        playback = self.playback
        sim = playback.fork(self.start, work) if self.engine is None else self._fresh(work)
        decoder = threading.Thread(target=self._decode_loop, args=(work,), daemon=True, name="play-decoder")
        decoder.start()
        try:
            end, per_tick = playback.ticks, 0.001
            base_tick, base_time, speed = sim.tick, time.perf_counter(), self.speed
            last_handed = -1
            while True:
                work.raise_if_cancelled()
                if self._error is not None:
                    raise self._error
                now = time.perf_counter()
                if self.speed != speed:  # a new speed counts from here
                    base_tick, base_time, speed = sim.tick, now, self.speed
                due = min(end, base_tick + int(speed * (now - base_time)))
                if self._ready.is_set() and not self._busy() and sim.tick != last_handed:
                    self._ready.clear()
                    self._hand(sim.tick, sim.records())
                    last_handed = sim.tick
                if sim.tick >= end:
                    if last_handed == end:
                        break
                    self._ready.wait(0.05)
                    continue
                if sim.tick >= due:
                    time.sleep(min(0.005, max(0.0005, 1 / max(speed, 1))))
                    continue
                n = min(due - sim.tick, max(1, int(STEP_SECONDS / per_tick)))
                started = time.perf_counter()
                sim.step(n)
                per_tick = max(1e-7, 0.5 * per_tick + 0.5 * (time.perf_counter() - started) / n)
                self.stepped = sim.tick
            self._finish(work)
            return sim.tick
        finally:
            with self._lock:
                self._pending, self._decoding = None, False
                self._lock.notify_all()
            self._stop = True
            with self._lock:
                self._lock.notify_all()
            decoder.join(timeout=5)

    def _fresh(self, work: Work) -> Simulator:
        """`engine` begun on the scenario and stepped to `start` (it keeps no keyframes here)."""
        sim = WasmSimulator(str(self.engine), self.playback.data)
        while sim.tick < self.start:
            work.raise_if_cancelled()
            sim.step(min(8, self.start - sim.tick))
        return sim

    # --- the decoding thread --------------------------------------------------------------

    _stop = False
    _error: BaseException | None = None  # what the decoding thread raised (raised again by `run`)

    def _busy(self) -> bool:
        with self._lock:
            return self._pending is not None or self._decoding

    def _hand(self, tick: int, records: np.ndarray) -> None:
        with self._lock:
            self._pending = (tick, records)
            self._lock.notify_all()

    def _finish(self, work: Work) -> None:
        """Wait until the last state handed over has been reported."""
        with self._lock:
            while (self._pending is not None or self._decoding) and not work.cancelled:
                self._lock.wait(0.05)
        work.raise_if_cancelled()
        if self._error is not None:
            raise self._error

    def _decode_loop(self, work: Work) -> None:
        playback = self.playback
        while True:
            with self._lock:
                while self._pending is None and not self._stop and not work.cancelled:
                    self._lock.wait(0.05)
                if self._stop or work.cancelled:
                    return
                tick, records = self._pending  # type: ignore[misc]
                self._pending, self._decoding = None, True
            try:
                state = state_from_records(playback.scenario, records, tick=tick, grid=playback.grid)
                if not work.cancelled:
                    work.report(tick / max(1, playback.ticks), f"playing at tick {tick:,}", state)
            except Cancelled:
                return
            except BaseException as exc:  # raised again on the stepping thread
                self._error = exc
                return
            finally:
                with self._lock:
                    self._decoding = False
                    self._lock.notify_all()
