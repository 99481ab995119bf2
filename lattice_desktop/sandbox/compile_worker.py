"""Compile one wasm module in a child process: `python -m ... compile_worker IN OUT MEM SECS`.

Compilation has no fuel, so a hostile module could make it take forever or use huge
amounts of memory; running it here lets the parent kill it at a time limit, and the
child bounds itself: MEM bytes of heap, SECS (+1) seconds of CPU, no core file.
Exit codes: 0 compiled; 3 not a valid module (message on stderr); 4 out of memory (a
MemoryError, or wasmtime's own failed allocation).
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

OUT_OF_MEMORY = "Cannot allocate buffer"


def _limit_self(memory_bytes: int, cpu_seconds: float) -> None:
    import resource

    if sys.platform.startswith("linux"):  # die with the grader, even on kill -9
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG

    resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cpu = math.ceil(cpu_seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def main(argv: list[str]) -> int:
    source, target, memory_bytes = Path(argv[0]), Path(argv[1]), int(argv[2])
    cpu_seconds = float(argv[3]) if len(argv) > 3 else 3600.0
    _limit_self(memory_bytes, cpu_seconds)
    try:
        import wasmtime

        from lattice_desktop.sandbox.engine_config import make_config

        engine = wasmtime.Engine(make_config())
        try:
            module = wasmtime.Module(engine, source.read_bytes())
        except wasmtime.WasmtimeError as exc:
            message = str(exc).strip()
            print(message, file=sys.stderr)
            # Cranelift's object writer reports a failed allocation as an error, not an abort
            return 4 if OUT_OF_MEMORY in message else 3
        serialized = module.serialize()
    except MemoryError:
        print("out of memory while compiling", file=sys.stderr)
        return 4
    # A name of our own: two processes compiling the same module never share a part file.
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    try:
        partial.write_bytes(serialized)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
