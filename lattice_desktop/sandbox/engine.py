"""The one wasmtime Engine every case runs on: fuel metering plus an epoch backstop.

Fuel counts are only comparable within one wasmtime version and one configuration,
so both are fixed (the configuration in engine_config.py, which the compile child shares)
and recorded with every run (`FUEL_SETTINGS`).
"""

from __future__ import annotations

import threading
from functools import cache
from importlib.metadata import version
from typing import TYPE_CHECKING, TypeVar

import wasmtime

from lattice_desktop.sandbox.engine_config import make_config

if TYPE_CHECKING:
    from wasmtime._instance import InstanceExports

Export = TypeVar("Export", wasmtime.Func, wasmtime.Memory)

WASMTIME_VERSION = version("wasmtime")
WORKER_STACK = 16 * 1024 * 1024  # native stack of grading threads; must exceed MAX_WASM_STACK
EPOCH_INTERVAL = 0.02  # seconds per epoch tick
FUEL_SETTINGS = f"wasmtime {WASMTIME_VERSION}; consume_fuel; cranelift speed; default costs"


@cache
def shared_engine() -> wasmtime.Engine:
    engine = wasmtime.Engine(make_config())
    _EpochTicker(engine).start()
    return engine


@cache
def unmetered_engine() -> wasmtime.Engine:
    """The grader's configuration without fuel, for the bundled reference's live playback:
    fuel is no verdict there and metering costs about a fifth of its speed."""
    engine = wasmtime.Engine(make_config(metered=False))
    _EpochTicker(engine).start()
    return engine


def seconds_to_epochs(seconds: float) -> int:
    return max(1, int(seconds / EPOCH_INTERVAL) + 1)


class _EpochTicker(threading.Thread):
    """Advances the engine's epoch so a store's deadline means wall-clock time."""

    def __init__(self, engine: wasmtime.Engine) -> None:
        super().__init__(name="wasm-epoch", daemon=True)
        self.engine = engine

    def run(self) -> None:
        stop = threading.Event()
        while not stop.wait(EPOCH_INTERVAL):
            self.engine.increment_epoch()


def interrupt_all(max_seconds: float) -> None:
    """Push the epoch past every deadline so every running call stops with INTERRUPT.

    Used for Cancel. A run that did not ask for this sees an interrupt before its own
    deadline and simply runs its case again (see runner), so it is never misgraded.
    """
    engine = shared_engine()
    for _ in range(seconds_to_epochs(max_seconds) + 1):
        engine.increment_epoch()


def exported(exports: InstanceExports, name: str, kind: type[Export]) -> Export:
    """`exports[name]`, which must be a `kind` (a Func or a Memory): KeyError when it is
    missing, TypeError when it is something else."""
    item = exports[name]
    if not isinstance(item, kind):
        raise TypeError(f"export '{name}' is not a {kind.__name__}")
    return item
