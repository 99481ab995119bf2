"""Run a Lattice engine compiled to wasm: checksums, records at a tick, and fuel.

The engine may be the bundled reference or any module a user names (`scenario expect
--engine`), so every call goes through the grader's sandbox (`runner.call_bytes`): the
import policy, memory, table and output limits, fuel, and a wall-clock bound that turns
an endless engine into a clear error. Modules compile out of process, cached by hash.
"""

from __future__ import annotations

import struct
from pathlib import Path

from lattice_desktop.errors import Location, UserError
from lattice_desktop.outcomes import Outcome
from lattice_desktop.resources import CASES
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from lattice_desktop.sandbox.engine import interrupt_all
from lattice_desktop.sandbox.guest import BytesExports, Limits
from lattice_desktop.sandbox.runner import Execution, call_bytes
from lattice_desktop.work import Work

# Limits for engines outside a case: the bundled case's memory, generous fuel (not a
# verdict here), and a wall clock the caller may change.
DEFAULT_LIMITS = Limits(fuel=2**62, memory_bytes=4 * 2**30, wall_clock=120.0, max_output_bytes=256 * 2**20)
MAX_ENGINE_BYTES = 64 * 2**20
REFERENCE_WASM = CASES / "lattice" / "submissions" / "reference" / "engine.wasm"  # the bundled one
COMPILE_TIMEOUT = 60.0


class EngineError(UserError):
    """An engine module did not follow the Lattice contract (§7, §8) or its limits."""


class WasmEngine:
    """Runs one engine module: checksums, records at a tick, and fuel."""

    def __init__(self, wasm_path: str | Path, *, limits: Limits = DEFAULT_LIMITS) -> None:
        self.path = str(Path(wasm_path).resolve())
        self.limits = limits

    def run(self, scenario: bytes, *, work: Work | None = None) -> list[int]:
        """The snapshot checksums of `scenario` (floor(T/S) of them); cancelling `work`
        interrupts the running wasm (`Cancelled`)."""
        return _u64s(self._call("lattice_run", scenario, work=work).output or b"", self.path)

    def records(self, scenario: bytes, tick: int) -> dict[int, int]:
        """The state after `tick` ticks as {record key: value} (§8)."""
        values = _u64s(self._call("lattice_records", scenario, tick).output or b"", self.path)
        if len(values) % 2:
            raise EngineError("lattice_records returned an odd number of u64s", Location(self.path))
        return dict(zip(values[0::2], values[1::2], strict=True))

    def fuel_of(self, scenario: bytes) -> int:
        """The fuel one `lattice_run` call burns on `scenario`, counted as the grader counts it."""
        return self._call("lattice_run", scenario).fuel or 0

    def measure(self, scenario: bytes) -> tuple[list[int], int]:
        """`run` and `fuel_of` from one call: the checksums and the fuel they took."""
        done = self._call("lattice_run", scenario)
        return _u64s(done.output or b"", self.path), done.fuel or 0

    def _call(self, export: str, scenario: bytes, *extra: int, work: Work | None = None) -> Execution:
        try:
            compiled = compile_module(
                Path(self.path).read_bytes(), max_bytes=MAX_ENGINE_BYTES, timeout=COMPILE_TIMEOUT
            )
        except (CompileError, OSError) as exc:
            raise EngineError(f"the engine cannot be loaded: {exc}", Location(self.path)) from None
        if work is not None:  # Cancel stops running wasm through the engine's epoch, as in grading
            work.on_cancel(lambda: interrupt_all(self.limits.wall_clock))
        run = call_bytes(
            compiled.module, BytesExports(export), scenario, extra=extra, limits=self.limits, work=work
        )
        if run.outcome is Outcome.TIMEOUT:
            raise EngineError(
                f"{export} did not finish within {self.limits.wall_clock:g} s and was "
                "stopped (raise --timeout for a longer run)",
                Location(self.path),
            )
        if run.outcome is not None:
            raise EngineError(f"{export} failed ({run.outcome.value}): {run.detail}", Location(self.path))
        return run


def _u64s(data: bytes, path: str) -> list[int]:
    if len(data) % 8:
        raise EngineError("output length is not a multiple of 8", Location(path))
    return list(struct.unpack(f"<{len(data) // 8}Q", data))
