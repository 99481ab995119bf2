"""Simulators behind playback: one live factory that steps, saves and restores keyframes.

* `PythonSimulator` — the reference rules (`rules.Factory`); keyframes are copies of
  its mutable state. Always available; slow on big factories.
* `WasmSimulator` — a wasm reference engine kept alive in one instance through the
  non-contract exports `lattice_begin`, `lattice_step` and `lattice_records_now`;
  keyframes are copies of its linear memory (`WasmKeyframe`), raw or zlib-packed.
* `ReplaySimulator` — any engine with only the §8 `lattice_records` export: every
  state is simulated from tick 0 (no keyframes are possible).

Plus `state_from_records`, a vectorised decoder from records to a drawable state, and
`checked_state`, the same for records of an untrusted engine.
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np
import wasmtime

from lattice_desktop.lattice.fast_decode import decode_state
from lattice_desktop.lattice.rules import Factory
from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.lattice.view import FactoryState, check_records, layout
from lattice_desktop.lattice.wasm_engine import DEFAULT_LIMITS, EngineError, WasmEngine
from lattice_desktop.sandbox.engine import exported, unmetered_engine
from lattice_desktop.sandbox.guest import Refused, limited_store, packed_span, rearm

if TYPE_CHECKING:
    from wasmtime._instance import InstanceExports

STEPPING_EXPORTS = ("lattice_begin", "lattice_step", "lattice_records_now")
# tick, belt slots, sink counts, assembler timers, assembler buffers (see PythonSimulator.save)
PythonKeyframe = tuple[int, np.ndarray, list[dict[int, int]], list[int], list[dict[int, int]]]


# --- records to a drawable state, vectorised ----------------------------------------------


def state_from_records(
    scenario: Scenario,
    data: bytes | np.ndarray,
    *,
    tick: int,
    grid: tuple[np.ndarray, np.ndarray] | None = None,
) -> FactoryState:
    """A `FactoryState` from §8 records of a trusted engine, as (key, value) u64 pairs.

    Gives the same state as the slow decoder in tests/lattice/slow_state.py without a Python loop over belt
    items (a stress factory holds hundreds of thousands); it does not validate records.
    Its sparse layers are worked out here, off the GUI thread (see `fast_decode`).
    """
    pairs = np.frombuffer(data, "<u8").reshape(-1, 2) if isinstance(data, bytes) else data
    return decode_state(scenario, pairs, tick=tick, grid=grid if grid is not None else layout(scenario))


def checked_state(
    scenario: Scenario,
    records: dict[int, int],
    *,
    tick: int,
    grid: tuple[np.ndarray, np.ndarray] | None = None,
) -> FactoryState:
    """An untrusted engine's records drawn as a factory: checked by `view.check_records`
    (its `RecordsError`s), then laid out with numpy. The Python loop took
    3.6 s on the largest stress scenario; see benchmarks/factory_diff.py."""
    grid = grid if grid is not None else layout(scenario)
    pairs = records_array(records)
    check_records(scenario, pairs, grid[0])
    return state_from_records(scenario, pairs, tick=tick, grid=grid)


def records_array(records: dict[int, int]) -> np.ndarray:
    """{key: value} records as (n, 2) u64 (key, value) pairs, in the same order."""
    pairs = np.empty((len(records), 2), np.uint64)
    pairs[:, 0] = np.fromiter(records.keys(), np.uint64, len(records))
    pairs[:, 1] = np.fromiter(records.values(), np.uint64, len(records))
    return pairs


# --- simulators ---------------------------------------------------------------------------


class Simulator(Protocol):
    """One live run of a scenario. `tick` is the last tick completed."""

    keeps_keyframes: bool  # False when a keyframe would cost as much as replaying

    @property
    def tick(self) -> int: ...

    def step(self, ticks: int) -> None: ...

    def save(self) -> object: ...

    def load(self, keyframe: object) -> None: ...

    def records(self) -> np.ndarray: ...  # (n, 2) u64 (key, value) pairs of the state now

    def fork(self, keyframe: object) -> Simulator: ...  # another simulator of the same run at `keyframe`


class PythonSimulator:
    """The reference rules; a keyframe is a copy of the factory's mutable state."""

    keeps_keyframes = True

    def __init__(self, scenario: Scenario) -> None:
        self.factory = Factory(scenario)

    @property
    def tick(self) -> int:
        return self.factory.tick

    def step(self, ticks: int) -> None:
        self.factory.run_to(self.factory.tick + ticks)

    # The fields below are everything `Factory.step` mutates (tests/lattice/test_playback.py
    # checks keyframed states against stepping from scratch, so a new field shows up there).
    def save(self) -> object:
        f = self.factory
        return (
            f.tick,
            f._hold.copy(),
            [dict(d) for d in f._sink_counts],
            list(f._remaining),
            [dict(d) for d in f._buffer],
        )

    def load(self, keyframe: object) -> None:
        tick, hold, sinks, remaining, buffer = cast(PythonKeyframe, keyframe)
        f = self.factory
        f.tick, f._hold, f._remaining = tick, hold.copy(), list(remaining)
        f._sink_counts = [dict(d) for d in sinks]
        f._buffer = [dict(d) for d in buffer]

    def records(self) -> np.ndarray:
        return records_array(self.factory.records())

    def fork(self, keyframe: object) -> PythonSimulator:
        other = PythonSimulator(self.factory.scenario)
        other.load(keyframe)
        return other


class ReplaySimulator:
    """An engine with only `lattice_records` (§8): each state is simulated from tick 0."""

    keeps_keyframes = False

    def __init__(self, engine: WasmEngine, scenario_bytes: bytes) -> None:
        self.engine, self.data, self.tick = engine, scenario_bytes, 0

    def step(self, ticks: int) -> None:
        self.tick += ticks

    def save(self) -> object:
        return self.tick

    def load(self, keyframe: object) -> None:
        assert isinstance(keyframe, int)
        self.tick = keyframe

    def records(self) -> np.ndarray:
        return records_array(self.engine.records(self.data, self.tick))

    def fork(self, keyframe: object) -> ReplaySimulator:
        other = ReplaySimulator(self.engine, self.data)
        other.load(keyframe)
        return other


@lru_cache(maxsize=8)
def _stepping_module(path: str) -> wasmtime.Module | None:
    module = wasmtime.Module.from_file(unmetered_engine(), path)
    names = {e.name for e in module.exports}
    return module if names.issuperset(STEPPING_EXPORTS) and not module.imports else None


_module_lock = threading.Lock()


def stepping_module(path: str | Path) -> wasmtime.Module | None:
    """The compiled module when it has the stepping exports (and no imports), else None.

    For the bundled reference: compiled in process and run without fuel (see WasmSimulator)."""
    with _module_lock:
        return _stepping_module(str(Path(path).resolve()))


@dataclass(frozen=True)
class WasmKeyframe:
    """A wasm instance's whole linear memory after `tick`: raw, or zlib-packed."""

    tick: int
    size: int
    data: bytes | bytearray
    packed: bool

    def pack(self) -> WasmKeyframe:
        return self if self.packed else WasmKeyframe(self.tick, self.size, zlib.compress(self.data, 1), True)

    @property
    def nbytes(self) -> int:
        return len(self.data)


class WasmSimulator:
    """A wasm engine kept alive: `lattice_begin` once, then `lattice_step` and
    `lattice_records_now`; a keyframe is its whole linear memory (`WasmKeyframe`)."""

    keeps_keyframes = True

    def __init__(self, path: str | Path, scenario_bytes: bytes | None) -> None:
        module = stepping_module(path)
        if module is None:
            raise EngineError(f"{path} lacks the stepping exports {', '.join(STEPPING_EXPORTS)}")
        self.path, self.module, self.limits = path, module, DEFAULT_LIMITS
        self.tick = 0
        if scenario_bytes is None:  # a fork: `load` gives it its state
            self._instantiate()
            return
        try:
            exports = self._instantiate()
            ptr = exported(exports, "alloc", wasmtime.Func)(self.store, len(scenario_bytes))
            self.memory.write(self.store, scenario_bytes, ptr)
            exported(exports, "lattice_begin", wasmtime.Func)(self.store, ptr, len(scenario_bytes))
        except (wasmtime.WasmtimeError, KeyError, TypeError) as exc:
            raise EngineError(f"{path} cannot begin the scenario: {exc}") from None

    def _instantiate(self) -> InstanceExports:
        """A fresh store and instance of the module (its exports); nothing run in it yet."""
        self.store = limited_store(self.limits, metered=False)
        exports = wasmtime.Instance(self.store, self.module, []).exports(self.store)
        self.memory = exported(exports, "memory", wasmtime.Memory)
        self._step = exported(exports, "lattice_step", wasmtime.Func)
        self._records_now = exported(exports, "lattice_records_now", wasmtime.Func)
        return exports

    def step(self, ticks: int) -> None:
        if ticks > 0:
            rearm(self.store, self.limits)
            self.tick = int(self._step(self.store, ticks))

    def save(self) -> object:
        size = self.memory.data_len(self.store)
        return WasmKeyframe(self.tick, size, self.memory.read(self.store, 0, size), False)

    def load(self, keyframe: object) -> None:
        assert isinstance(keyframe, WasmKeyframe)
        data = zlib.decompress(keyframe.data) if keyframe.packed else keyframe.data
        if self.memory.data_len(self.store) > keyframe.size:
            # Linear memory cannot shrink, and an engine's allocator keeps where memory ends
            # inside memory itself: restored over a larger memory, it would grow memory again
            # on its next allocation, a leak of megabytes a seek. A fresh instance has the
            # keyframe's exact size (a C engine's only mutable global, its stack pointer, is
            # back at its start between calls).
            self._instantiate()
        missing = keyframe.size - self.memory.data_len(self.store)
        if missing > 0:
            self.memory.grow(self.store, -(-missing // 65536))
        # One copy straight into linear memory (Memory.write would copy `data` once more
        # into a bytearray first: a tenth of a second a seek on a 2048² factory).
        size = self.memory.data_len(self.store)
        memory = np.frombuffer(memoryview(self.memory.get_buffer_ptr(self.store, size)), np.uint8)
        memory[: len(data)] = np.frombuffer(data, np.uint8)
        memory[len(data) :] = 0
        self.tick = keyframe.tick

    def fork(self, keyframe: object) -> WasmSimulator:
        """A new instance of the module holding `keyframe`'s memory (the scenario is not
        parsed again)."""
        other = WasmSimulator(self.path, None)
        other.load(keyframe)
        return other

    def records(self) -> np.ndarray:
        """The records now, copied once out of linear memory (no hash, no bytes object: at
        2048² that copying and hashing cost more than the engine writing the records)."""
        rearm(self.store, self.limits)
        try:
            ptr, length, size = packed_span(
                self.store, self.memory, int(self._records_now(self.store)), self.limits
            )
        except Refused as e:
            raise EngineError(f"lattice_records_now: {e.detail}") from None
        if length % 16:
            raise EngineError("lattice_records_now returned a partial record")
        memory = np.frombuffer(memoryview(self.memory.get_buffer_ptr(self.store, size)), np.uint8)
        return memory[ptr : ptr + length].view("<u8").reshape(-1, 2).copy()


def make_simulator(scenario: Scenario, scenario_bytes: bytes, engine: WasmEngine | None) -> Simulator:
    """The fastest simulator the engine allows (see the module docstring)."""
    if engine is None:
        return PythonSimulator(scenario)
    if stepping_module(engine.path) is not None:
        return WasmSimulator(engine.path, scenario_bytes)
    return ReplaySimulator(engine, scenario_bytes)
