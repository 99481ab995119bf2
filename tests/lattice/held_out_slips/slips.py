"""Held-out single-rule slips, to measure `explain` on engines the project never saw.

`engine.c` and `lattice_common.h` here are the bundled reference engine with one switch per
rule (`-DHSLIP=N`, N below): each slip acts only on cells past the first 4096, so every
smoke test (and stress-64) passes and only the larger stress cases catch it, as `scale_bug`
is caught. They are other readings than the project's own slips (`tests/lattice/mutants.py`,
`slip_engines/engine.c`) where a plausible one exists (right side-loads refused, sources due
one tick late, slots 0 and 1 held behind a stuck exit, sides outranking the belt behind onto
a full slot, a sink counting one item of a type per tick, offers taken S, E, N, W), and
scale-gated versions of theirs elsewhere.

    python -m tests.lattice.held_out_slips.slips [N ...]

builds each, checks it passes every smoke test, finds the first stress case it fails, and
prints the rank at which `explain` names the slipped rule there.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.build_engines import COMPILE_ARGS
from lattice_desktop.lattice.divergence import first_difference
from lattice_desktop.lattice.explain.diagnosis import Diagnosis
from lattice_desktop.lattice.explain.find import explain_scenario
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import DEFAULT_LIMITS, WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case
from tests.lattice.wasm_slips import cache_dir

HERE = Path(__file__).resolve().parent
SLIPS: dict[int, str] = {
    1: "straight_belt",
    2: "turn",
    3: "compression_behind_blocked_exit",
    4: "chained_movement",
    5: "side_load_priority",
    6: "opposite_belt_refused",
    7: "ring_rotation",
    8: "jammed_ring",
    9: "source_period_and_full_buffer",
    10: "sink_counting",
    11: "assembler_capacity",
    12: "assembler_priority",
    13: "crafting_timing",
    14: "grid_edge",
    15: "assembler_refuses_unneeded_type",
    # the second batch: from tick 65 on, anywhere
    16: "straight_belt",
    17: "turn",
    18: "compression_behind_blocked_exit",
    19: "chained_movement",
    20: "side_load_priority",
    21: "opposite_belt_refused",
    22: "ring_rotation",
    23: "jammed_ring",
    24: "source_period_and_full_buffer",
    25: "sink_counting",
    26: "assembler_capacity",
    27: "assembler_priority",
    28: "crafting_timing",
    29: "grid_edge",
    30: "assembler_refuses_unneeded_type",
    # the third batch, measured once as written: east of x = 31 (south of y = 31 at the edge)
    31: "straight_belt",
    32: "turn",
    34: "side_load_priority",
    35: "sink_counting",
    36: "assembler_priority",
    37: "crafting_timing",
    38: "source_period_and_full_buffer",
    41: "grid_edge",
    43: "chained_movement",
    44: "assembler_capacity",
    # the fourth batch, measured once as written: south of y = 15
    45: "straight_belt",
    46: "turn",
    47: "side_load_priority",
    49: "ring_rotation",
    50: "source_period_and_full_buffer",
    51: "sink_counting",
    52: "assembler_capacity",
    53: "assembler_priority",
    54: "crafting_timing",
    55: "grid_edge",
    56: "assembler_refuses_unneeded_type",
    57: "chained_movement",
    58: "compression_behind_blocked_exit",
}
LIMITS = dataclasses.replace(DEFAULT_LIMITS, wall_clock=900.0)
LINES = WasmEngine(build_engines.SUBMISSIONS_DIR / "lines" / "engine.wasm")


def build(n: int) -> Path:
    """The wasm module with slip `n` switched on, built once per content of the sources."""
    args = [*COMPILE_ARGS]
    args.insert(args.index("-o"), f"-DHSLIP={n}")
    digest = hashlib.sha256()
    for part in (
        (HERE / "engine.c").read_bytes(),
        (HERE / "lattice_common.h").read_bytes(),
        "\0".join(args).encode(),
    ):
        digest.update(part + b"\0")
    digest.update(importlib.metadata.version("ziglang").encode())
    folder = cache_dir().parent / "held-out-slips" / f"{n}-{digest.hexdigest()[:16]}"
    module = folder / "engine.wasm"
    if module.is_file():
        return module
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="build-", dir=folder.parent))
    try:
        for name in ("engine.c", "lattice_common.h"):
            shutil.copyfile(HERE / name, staging / name)
        done = subprocess.run(
            [sys.executable, *args], check=False, cwd=staging, capture_output=True, text=True
        )
        if done.returncode:
            raise RuntimeError(f"building slip {n} failed:\n{done.stderr}")
        folder.mkdir(exist_ok=True)
        shutil.move(str(staging / "engine.wasm"), module)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return module


def smoke_failures(engine: WasmEngine) -> list[str]:
    case = load_case(demo_case())
    return [
        e.name for e in case.cases if e.is_smoke and engine.run(e.input_bytes()) != _u64s(e.expected_bytes())
    ]


def _u64s(data: bytes) -> list[int]:
    return [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)]


def explain_first_failure(engine: WasmEngine) -> Diagnosis | None:
    """The diagnosis of the first stress case the engine fails, None when it fails none."""
    case = load_case(demo_case())
    for entry in case.cases:
        if entry.is_smoke:
            continue
        data = entry.input_bytes()
        row = first_difference(_u64s(entry.expected_bytes()), engine.run(data))
        if row is None:
            continue
        snapshot = parse_scenario(data).snapshot
        _, diagnosis = explain_scenario(
            data,
            case=entry.name,
            agrees=row * snapshot,
            differs=(row + 1) * snapshot,
            reference_checksums=LINES.run,
            submission_checksums=engine.run,
            reference_records=lambda t, data=data: LINES.records(data, t),
            submission_records=lambda t, data=data: engine.records(data, t),
        )
        return diagnosis
    return None


def rank_of(diagnosis: Diagnosis, rule: str) -> int | None:
    names = [r.rule for r in diagnosis.rules]
    return names.index(rule) + 1 if rule in names else None


def main(argv: list[str]) -> int:
    chosen = [int(a) for a in argv] or list(SLIPS)
    print("| slip | rule | smoke tests failed | first failing case | tick | rank | named first |")
    print("|---|---|---|---|---|---|---|")
    for n in chosen:
        engine = WasmEngine(build(n), limits=LIMITS)
        failed = smoke_failures(engine)
        start = time.perf_counter()
        d = explain_first_failure(engine)
        took = time.perf_counter() - start
        if d is None:
            print(f"| {n} | {SLIPS[n]} | {len(failed)} | none | | | |")
            continue
        rank = rank_of(d, SLIPS[n])
        top = d.rules[0].rule if d.rules else "(none)"
        print(
            f"| {n} | `{SLIPS[n]}` | {len(failed)} | {d.case} | {d.tick} | {rank or '—'} | `{top}` | {took:.0f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
