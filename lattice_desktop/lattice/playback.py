"""The factory at any tick, quickly: a live simulation plus cached keyframes.

`Playback(scenario_bytes, engine)` answers `state_at(tick)` by loading the nearest
keyframe at or before `tick` (or carrying on from the live state when that is nearer)
and stepping forward. Keyframes are saved as the simulation passes through the run,
about every `keyframe_seconds` of stepping, so any tick is at most that far from one.

The engine behind it is a `Simulator` (simulators.py): the Python rules, a live wasm
engine whose keyframes are copies of its linear memory (saved raw, compressed later by
the background walk, never inside a user's seek, and kept on disk for the next session),
or a replaying engine that can keep no keyframes.

Plain Python, no Qt: the app calls it from worker threads. One lock serialises the
live simulation. Each call may take a `Work`: cancelling it (a newer seek superseding a
stale one) stops the call between chunks, and a long seek reports the states it passes
as its steps' items, so the screen never waits for the whole run to be simulated.
`prepare` — the background walk — yields to any waiting seek between 50 ms chunks and
carries on from wherever the last seek left the simulation, so the stretch the user is
looking at gets its keyframes first.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from lattice_desktop.lattice import keyframe_cache
from lattice_desktop.lattice.scenario import Scenario, parse_scenario
from lattice_desktop.lattice.simulators import (
    Simulator,
    WasmKeyframe,
    WasmSimulator,
    make_simulator,
    state_from_records,
)
from lattice_desktop.lattice.view import FactoryState, layout
from lattice_desktop.lattice.wasm_engine import REFERENCE_WASM, WasmEngine
from lattice_desktop.memory_release import give_back
from lattice_desktop.work import Work

PREVIEW_SECONDS = 0.4  # a long seek shows the state it has reached this often


def state_bytes(state: FactoryState) -> int:
    """About what one cached state holds of its own (its grid arrays are shared)."""
    cells, lead = state.items
    return state.slots.nbytes + state.source_buffer.nbytes + cells.nbytes + lead.nbytes


def reference_engine(path: Path = REFERENCE_WASM) -> WasmEngine | None:
    """The bundled wasm reference engine, or None (use the Python rules) when not built."""
    return WasmEngine(path) if path.is_file() else None


# --- playback -----------------------------------------------------------------------------


class Playback:
    """States of one scenario at any tick, from keyframes; safe to call from any thread."""

    def __init__(
        self,
        scenario_bytes: bytes,
        engine: WasmEngine | None = None,
        *,
        keyframe_every: int | None = None,
        keyframe_seconds: float = 0.15,
        max_keyframe_bytes: int = 512 * 2**20,
        cached_states: int = 6,
        max_state_bytes: int = 128 * 2**20,
        simulator: Simulator | None = None,
        name: str | None = None,
        scenario: Scenario | None = None,
    ) -> None:
        self.data = scenario_bytes
        self.engine = engine
        self._name = name
        # `scenario`: these bytes parsed already (a 2048² one takes a second to parse)
        self.scenario = scenario if scenario is not None else parse_scenario(scenario_bytes)
        self.grid = layout(self.scenario)
        self.sim = simulator or make_simulator(self.scenario, scenario_bytes, engine)
        self.keyframe_every = keyframe_every
        self.keyframe_seconds = keyframe_seconds
        self.max_keyframe_bytes = max_keyframe_bytes
        self._ticks: list[int] = [0]
        self._keyframes: dict[int, object] = {0: self.sim.save()}
        self._stepped = 0.0  # seconds of stepping since the last keyframe
        self._per_tick = 0.02  # seconds per tick, a running estimate (cautious at first)
        self._frontier = 0  # every tick up to here is at most one interval past a keyframe
        self._states: OrderedDict[int, FactoryState] = OrderedDict()
        self._cached_states = cached_states
        self.max_state_bytes = max_state_bytes  # states kept: at most this many bytes, at least 2
        self._lock = threading.Lock()
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        self.paused = False  # the keyframe walk waits meanwhile (Play wants both cores)
        # The engine's checksum after each tick (index i: tick i + 1), as far as a search for
        # the next divergence has run it: the next search reads them instead of rerunning.
        self.tick_checksums: list[int] = []
        self._disk = self._disk_path(engine) if isinstance(self.sim, WasmSimulator) else None
        self._load_from_disk()

    @property
    def ticks(self) -> int:
        return self.scenario.ticks

    @property
    def engine_name(self) -> str:
        if self._name:
            return self._name
        return {
            "PythonSimulator": "Python reference",
            "WasmSimulator": "wasm reference",
            "ReplaySimulator": "wasm reference (replay)",
        }.get(type(self.sim).__name__, "engine")

    @property
    def prepared(self) -> float:
        """How much of the run keyframes cover, 0..1 (1 for a simulator without them)."""
        return 1.0 if not self.sim.keeps_keyframes else min(1.0, self._frontier / self.ticks)

    def keyframe_ticks(self) -> list[int]:
        return list(self._ticks)

    def state_at(self, tick: int, work: Work | None = None) -> FactoryState:
        """The factory after `tick` ticks (0 = the start). Raises `Cancelled` when `work`
        is cancelled before the state is reached. On a long way there, `work` gets a step
        about every `PREVIEW_SECONDS` whose item is the state passed."""
        tick = max(0, min(int(tick), self.ticks))
        cached = self._states.get(tick)
        if cached is not None:
            return cached
        records = self._records(tick, work, previews=True)
        state = state_from_records(self.scenario, records, tick=tick, grid=self.grid)
        keep = max(2, min(self._cached_states, self.max_state_bytes // max(1, state_bytes(state))))
        with self._waiting_lock:
            self._states[tick] = state
            dropped = len(self._states) > keep
            while len(self._states) > keep:
                self._states.popitem(last=False)
        if dropped:
            give_back()  # a 2048² state's arrays are tens of megabytes: return them
        return state

    def records_at(self, tick: int, work: Work | None = None) -> np.ndarray:
        """The §8 records after `tick`, as (n, 2) u64 (key, value) pairs; `work` as in
        `state_at`, its steps without states."""
        return self._records(max(0, min(int(tick), self.ticks)), work, previews=False)

    def _records(self, tick: int, work: Work | None, *, previews: bool) -> np.ndarray:
        with self._waiting_lock:
            self._waiting += 1
        try:
            self._lock.acquire()
        finally:
            with self._waiting_lock:
                self._waiting -= 1
        try:
            self._seek(tick)
            self._advance(tick, work, previews=previews)
            return self.sim.records()  # a fresh array, the simulator's own copy
        finally:
            self._lock.release()

    def fork(self, tick: int, work: Work | None = None) -> Simulator:
        """A simulation of its own at `tick`: started from the nearest keyframe (a copy of
        it: the playback's own simulation is not touched) and stepped there. For playing."""
        tick = max(0, min(int(tick), self.ticks))
        with self._lock:
            key = self._ticks[bisect.bisect_right(self._ticks, tick) - 1]
            keyframe = self._keyframes[key]
        sim = self.sim.fork(keyframe)
        while sim.tick < tick:
            if work is not None:
                work.raise_if_cancelled()
            sim.step(min(tick - sim.tick, max(1, int(0.02 / self._per_tick))))
        return sim

    def prepare(self, work: Work | None = None) -> None:
        """Walk the whole run once, saving keyframes, then pack them; seeks go first
        between chunks. Raw keyframes past a quarter of the memory budget are packed
        on the way (here, off the seek's path). `work` gets the share covered."""
        if not self.sim.keeps_keyframes:
            return
        work = work or Work()
        while self._frontier < self.ticks:
            while self._waiting > 0 or self.paused:
                work.raise_if_cancelled()
                time.sleep(0.002)
            work.raise_if_cancelled()
            with self._lock:
                if self._waiting == 0:
                    self._seek(self._frontier)
                    self._advance(self.ticks, None, seconds=0.05)
            if self._raw_bytes() > self.max_keyframe_bytes // 4:
                self.pack_keyframes(work, keep_newest=1)
            work.report(self.prepared, "caching keyframes")
        self.pack_keyframes(work)
        give_back()  # the raw keyframes just packed
        self._save_to_disk()
        work.report(self.prepared, "keyframes cached")

    # --- keyframes on disk ----------------------------------------------------------------

    def _disk_path(self, engine: WasmEngine | None) -> Path | None:
        try:
            return keyframe_cache.cache_path(engine.path, self.data) if engine else None
        except OSError:
            return None

    def _load_from_disk(self) -> None:
        """Start warm when an earlier session walked this scenario with this engine."""
        stored = keyframe_cache.load(self._disk) if self._disk is not None else None
        if not stored or stored[0][0] != 0:
            return
        self._keyframes = {tick: WasmKeyframe(tick, size, data, True) for tick, size, data in stored}
        self._ticks = sorted(self._keyframes)
        self._frontier = self.ticks
        self.sim.load(self._keyframes[0])

    def _save_to_disk(self) -> None:
        if self._disk is None or self._disk.exists():
            return
        with self._lock:
            frames = [self._keyframes[t] for t in self._ticks]
        packed = [k for k in frames if isinstance(k, WasmKeyframe) and k.packed]
        if len(packed) == len(frames):
            # A cache is an optimisation: a full or read-only disk only costs speed.
            with contextlib.suppress(OSError):
                keyframe_cache.save(self._disk, [(k.tick, k.size, bytes(k.data)) for k in packed])

    def pack_keyframes(self, work: Work | None = None, keep_newest: int = 0) -> None:
        """Compress raw keyframes, oldest first (outside the simulation's lock)."""
        while True:
            with self._lock:
                raw = [t for t in self._ticks if getattr(self._keyframes.get(t), "packed", True) is False]
            if len(raw) <= keep_newest:
                return
            if work is not None:
                work.raise_if_cancelled()
            tick = raw[0]
            keyframe = self._keyframes.get(tick)
            if keyframe is None:
                continue
            packed = keyframe.pack()  # type: ignore[attr-defined]
            with self._lock:
                if tick in self._keyframes:
                    self._keyframes[tick] = packed

    def _raw_bytes(self) -> int:
        return sum(
            k.nbytes for k in list(self._keyframes.values()) if isinstance(k, WasmKeyframe) and not k.packed
        )

    # --- inside the lock ------------------------------------------------------------------

    def _seek(self, tick: int) -> None:
        """Put the live simulation at the best start for reaching `tick`."""
        key = self._ticks[bisect.bisect_right(self._ticks, tick) - 1]
        if not key <= self.sim.tick <= tick:
            self.sim.load(self._keyframes[key])
            self._stepped = 0.0

    def _advance(
        self, tick: int, work: Work | None, *, seconds: float | None = None, previews: bool = False
    ) -> None:
        """Step to `tick` (or for about `seconds`), saving keyframes past the frontier;
        now and then `work` gets how far it is (with the state there, if `previews`)."""
        if not self.sim.keeps_keyframes:
            self.sim.step(tick - self.sim.tick)
            return
        started_at = time.perf_counter()
        until = None if seconds is None else started_at + seconds
        # A long way: show where it starts at once, then what it passes now and then.
        shown = (
            started_at - PREVIEW_SECONDS
            if (tick - self.sim.tick) * self._per_tick > PREVIEW_SECONDS
            else started_at
        )
        start = self.sim.tick
        while self.sim.tick < tick:
            if work is not None:
                work.raise_if_cancelled()
                if time.perf_counter() - shown >= PREVIEW_SECONDS:
                    at = self.sim.tick
                    state = (
                        state_from_records(self.scenario, self.sim.records(), tick=at, grid=self.grid)
                        if previews
                        else None
                    )
                    work.report((at - start) / (tick - start), f"simulating to tick {tick:,}", state)
                    shown = time.perf_counter()
            if until is not None and time.perf_counter() > until:
                return
            # Steps of about 20 ms at most, so cancelling and keyframes stay timely.
            seconds_per_step = min(0.02, self.keyframe_seconds)
            n = min(tick - self.sim.tick, max(1, int(seconds_per_step / self._per_tick)))
            if self.keyframe_every:
                n = min(n, self.keyframe_every - self.sim.tick % self.keyframe_every)
            started = time.perf_counter()
            self.sim.step(n)
            spent = time.perf_counter() - started
            self._per_tick = max(1e-7, 0.5 * self._per_tick + 0.5 * spent / n)
            self._stepped += spent
            self._keyframe_if_due()

    def _keyframe_if_due(self) -> None:
        tick = self.sim.tick
        if tick <= self._frontier:
            return  # inside the stretch keyframes already cover
        if self.keyframe_every:
            due = tick % self.keyframe_every == 0
        else:
            due = self._stepped >= self.keyframe_seconds
        if due:
            self._ticks.append(tick)
            self._keyframes[tick] = self.sim.save()
            self._stepped = 0.0
            self._thin()
        self._frontier = tick

    def _thin(self) -> None:
        """Past the memory budget, drop every other keyframe (tick 0 stays)."""
        size = sum(_keyframe_bytes(k) for k in self._keyframes.values())
        if size <= self.max_keyframe_bytes or len(self._ticks) < 3:
            return
        for tick in self._ticks[1::2]:
            del self._keyframes[tick]
        self._ticks = self._ticks[::2]
        self.keyframe_seconds *= 2


def _keyframe_bytes(keyframe: object) -> int:
    """A rough size: wasm memory as held, or eight bytes per held slot in Python."""
    if isinstance(keyframe, WasmKeyframe):
        return keyframe.nbytes
    if isinstance(keyframe, tuple) and len(keyframe) == 5:
        return 8 * len(keyframe[1]) + 64 * (len(keyframe[2]) + len(keyframe[4]))
    return 16
