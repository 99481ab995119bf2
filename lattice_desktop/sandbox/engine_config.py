"""The engine configuration alone, for the compile child (compile_worker.py): it needs only
this and wasmtime, and starts once per module compiled, so it skips what engine.py loads
for everyone else (importlib.metadata, for the wasmtime version, costs a quarter of its
start)."""

from __future__ import annotations

import wasmtime

MAX_WASM_STACK = 2 * 1024 * 1024


def make_config(*, metered: bool = True) -> wasmtime.Config:
    """The engine configuration; the compile subprocess must build exactly the same one."""
    config = wasmtime.Config()
    config.consume_fuel = metered
    config.epoch_interruption = True
    config.max_wasm_stack = MAX_WASM_STACK
    config.cranelift_opt_level = "speed"
    config.parallel_compilation = False
    # No shared memories: `memory.atomic.wait` on one could block a worker where neither
    # fuel nor the epoch reaches it. Off by default today; pinned so it stays off.
    config.shared_memory = False
    return config
