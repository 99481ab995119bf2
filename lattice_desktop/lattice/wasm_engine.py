"""A small trusted runner for Lattice engines compiled to wasm (the bundled ones).

The app uses it for expected answers and playback. It is not the grader's sandbox:
it sets no limits and trusts the module. One wasmtime Engine and Module are cached
per path; every call gets a fresh Store and instance (Stores free nothing until dropped).
"""

from __future__ import annotations

import struct
import threading
from functools import lru_cache
from pathlib import Path

import wasmtime

from lattice_desktop.sandbox.engine import exported

_FUEL_BUDGET = 2**63 - 1


class EngineError(Exception):
    """An engine module did not follow the Lattice contract (§7, §8)."""


@lru_cache(maxsize=16)
def _compiled(path: str, *, metered: bool) -> tuple[wasmtime.Engine, wasmtime.Module]:
    config = wasmtime.Config()
    config.consume_fuel = metered
    engine = wasmtime.Engine(config)
    return engine, wasmtime.Module.from_file(engine, path)


_compile_lock = threading.Lock()


def _module(path: str, metered: bool) -> tuple[wasmtime.Engine, wasmtime.Module]:
    with _compile_lock:
        return _compiled(path, metered=metered)


class WasmEngine:
    """Runs one engine module: checksums, records at a tick, and fuel."""

    def __init__(self, wasm_path: str | Path) -> None:
        self.path = str(Path(wasm_path).resolve())

    def run(self, scenario: bytes) -> list[int]:
        """The snapshot checksums of `scenario` (floor(T/S) of them)."""
        data = self._call("lattice_run", scenario, metered=False)[0]
        return _u64s(data)

    def records(self, scenario: bytes, tick: int) -> dict[int, int]:
        """The state after `tick` ticks as {record key: value} (§8)."""
        data = self._call("lattice_records", scenario, tick, metered=False)[0]
        values = _u64s(data)
        if len(values) % 2:
            raise EngineError("lattice_records returned an odd number of u64s")
        return dict(zip(values[0::2], values[1::2], strict=True))

    def fuel_of(self, scenario: bytes) -> int:
        """The fuel `lattice_run` consumes on `scenario` (alloc and copy-in excluded)."""
        return self._call("lattice_run", scenario, metered=True)[1]

    def _call(self, export: str, scenario: bytes, *extra: int, metered: bool) -> tuple[bytes, int]:
        engine, module = _module(self.path, metered)
        store = wasmtime.Store(engine)
        if metered:
            store.set_fuel(_FUEL_BUDGET)
        instance = wasmtime.Instance(store, module, [])
        exports = instance.exports(store)
        try:
            memory = exported(exports, "memory", wasmtime.Memory)
            alloc, entry = exported(exports, "alloc", wasmtime.Func), exported(exports, export, wasmtime.Func)
        except (KeyError, TypeError) as exc:
            raise EngineError(f"the module's exports do not fit: {exc}") from None
        ptr = alloc(store, len(scenario))
        memory.write(store, scenario, ptr)
        before = store.get_fuel() if metered else 0
        packed = entry(store, ptr, len(scenario), *extra) & 0xFFFF_FFFF_FFFF_FFFF
        used = before - store.get_fuel() if metered else 0
        out_ptr, out_len = packed >> 32, packed & 0xFFFF_FFFF
        if out_ptr + out_len > memory.data_len(store):
            raise EngineError(f"{export} returned bytes outside memory")
        return bytes(memory.read(store, out_ptr, out_ptr + out_len)), used


def _u64s(data: bytes) -> list[int]:
    if len(data) % 8:
        raise EngineError("output length is not a multiple of 8")
    return list(struct.unpack(f"<{len(data) // 8}Q", data))
