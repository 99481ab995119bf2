"""The single-rule wrong engines of `mutants.py` as wasm, fast enough for every stress case.

`slip_engines/engine.c` is the C reference engine with one compile-time switch per slip
(`-DSLIP=<NAME>`, NAME the mutant's class name in upper snake case: `SlotOneLanding` is
`SLOT_ONE_LANDING`); without one it is the reference. `build` compiles a variant with the
bundled engines' command (ziglang) into the user cache folder (LATTICE_DESKTOP_CACHE when
set), keyed by a hash of everything the build reads, and `run` runs it through the grader's
sandbox. `test_wasm_slips.py` checks each C slip against its Python mutant.

    python -m tests.lattice.wasm_slips [stress-384 stress-512 ...]   (default: every stress case)

prints, for each case and slip, the rule's decisive count in the stored census and whether
the case catches the slip (and at which snapshot), and exits 1 when a slip passes a case
where its rule is decisive. A wasm run cannot stop at the first wrong snapshot, so every run
costs the whole case: a few seconds each on the largest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import platformdirs

from lattice_desktop.lattice.build_engines import COMPILE_ARGS
from lattice_desktop.lattice.wasm_engine import DEFAULT_LIMITS, WasmEngine
from tests.lattice.mutants import CAUGHT_BY, Mutant

REPO = Path(__file__).resolve().parents[2]
ENGINE_C = Path(__file__).resolve().parent / "slip_engines" / "engine.c"
# The reference submission's own header, staged beside engine.c for each build (tests/ keeps no copy).
COMMON_HEADER = REPO / "resources" / "cases" / "lattice" / "submissions" / "reference" / "lattice_common.h"
SLIPS: tuple[type[Mutant], ...] = tuple(m for mutants in CAUGHT_BY.values() for m in mutants)
# A slip's engine may be slower than the reference; a stress case takes seconds.
LIMITS = dataclasses.replace(DEFAULT_LIMITS, wall_clock=900.0)


def macro(slip: type[Mutant] | None) -> str | None:
    """The value of SLIP that switches `slip` on in engine.c (None: the reference)."""
    return None if slip is None else re.sub(r"(?<!^)(?=[A-Z])", "_", slip.__name__).upper()


def cache_dir() -> Path:
    root = os.environ.get("LATTICE_DESKTOP_CACHE") or platformdirs.user_cache_dir("lattice-desktop")
    return Path(root) / "slip-engines"


def build(slip: type[Mutant] | None) -> Path:
    """The wasm module of engine.c with `slip` switched on (None: none), built once per
    content of the sources, the command and ziglang's version."""
    args = [*COMPILE_ARGS]
    if slip is not None:
        args.insert(args.index("-o"), f"-DSLIP={macro(slip)}")
    digest = hashlib.sha256()
    for part in (ENGINE_C.read_bytes(), COMMON_HEADER.read_bytes(), "\0".join(args).encode()):
        digest.update(part + b"\0")
    digest.update(importlib.metadata.version("ziglang").encode())
    folder = cache_dir() / f"{macro(slip) or 'REFERENCE'}-{digest.hexdigest()[:16]}"
    module = folder / "engine.wasm"
    if module.is_file():
        return module
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="build-", dir=folder.parent))
    try:
        shutil.copyfile(ENGINE_C, staging / "engine.c")
        shutil.copyfile(COMMON_HEADER, staging / "lattice_common.h")
        done = subprocess.run(
            [sys.executable, *args], check=False, cwd=staging, capture_output=True, text=True
        )
        if done.returncode:
            raise RuntimeError(f"building {macro(slip) or 'the reference'} failed:\n{done.stderr}")
        folder.mkdir(exist_ok=True)
        os.replace(staging / "engine.wasm", module)  # atomic: a concurrent build wins or loses whole
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return module


def run(slip: type[Mutant] | None, scenario: bytes) -> list[int]:
    """The snapshot checksums of `scenario` under the engine with `slip` (None: none)."""
    return WasmEngine(build(slip), limits=LIMITS).run(scenario)


def first_wrong(got: list[int], expected: list[int]) -> int | None:
    """The index of the first snapshot of `got` that differs from `expected`, or None."""
    for index, (a, b) in enumerate(zip(got, expected, strict=False)):
        if a != b:
            return index
    return None if len(got) == len(expected) else min(len(got), len(expected))


def main(argv: list[str] | None = None) -> int:
    """Run every slip on the named stress cases (default: all); exit 1 when a slip passes a
    case where its rule is decisive, or the switch-less build misses a case's answers."""
    import numpy as np

    from lattice_desktop.lattice.census import stored_census
    from lattice_desktop.manifest import load_case
    from lattice_desktop.resources import demo_case

    case = load_case(demo_case())
    names = (sys.argv[1:] if argv is None else argv) or [e.name for e in case.stress]
    began = time.perf_counter()
    for slip in (None, *SLIPS):
        build(slip)
    print(f"built {len(SLIPS) + 1} engines in {time.perf_counter() - began:.1f} s", flush=True)
    failures = 0
    for entry in (case.entry(name) for name in names):
        data = entry.input_bytes()
        counted = stored_census(data, case_dir=case.path.parent)
        expected = np.frombuffer(entry.expected_bytes(), "<u8").tolist()
        for slip in (None, *SLIPS):
            start = time.perf_counter()
            wrong = first_wrong(run(slip, data), expected)
            seconds = time.perf_counter() - start
            if slip is None:  # the reference: a check of the harness itself
                name, field, count = "(no slip)", "", ""
                verdict = "right" if wrong is None else f"WRONG at snapshot {wrong}"
                failures += wrong is not None
            else:
                name, field = slip.__name__, slip.decisive
                events = getattr(counted, field) if counted else -1  # -1: no stored census
                count = f"{events:,}"
                verdict = f"caught at snapshot {wrong}" if wrong is not None else "PASSES"
                failures += events > 0 and wrong is None
            print(
                f"{entry.name:<11} {name:<24} {field:<22} {count:>10} {verdict:<22} {seconds:6.2f} s",
                flush=True,
            )
    print(f"total {time.perf_counter() - began:.1f} s", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
