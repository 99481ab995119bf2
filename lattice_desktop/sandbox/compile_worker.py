"""Compile one wasm module in a child process: `python -m ... compile_worker IN OUT`.

Compilation has no fuel, so a hostile module could make it take forever or use huge
amounts of memory; running it here lets the parent kill it at a time limit.
Exit codes: 0 compiled; 3 not a valid module (message on stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    import resource

    source, target, memory_bytes = Path(argv[0]), Path(argv[1]), int(argv[2])
    resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    import wasmtime

    from lattice_desktop.sandbox.engine import make_config

    engine = wasmtime.Engine(make_config())
    try:
        module = wasmtime.Module(engine, source.read_bytes())
    except wasmtime.WasmtimeError as exc:
        print(str(exc).strip(), file=sys.stderr)
        return 3
    partial = target.with_suffix(".part")
    partial.write_bytes(module.serialize())
    partial.replace(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
