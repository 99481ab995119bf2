"""Profiling time against module size: a generated module of N small functions (each calls
the next), profiled whole at several N. Prints seconds per 10k functions for each step and
the fitted slope of log(time) against log(N): 1 is linear, 2 quadratic. Asserts nothing.

    .venv/bin/python benchmarks/profile_instrument.py [--sizes 2500 5000 10000 20000]

Steps: "whole profile" is everything `profile` does for a new module; "instrument" prints the module with wasm-tools, reads it and writes the instrumented
text; "encode" is wasm-tools parse; "compile" the child process's compile; "run" the
instrumented run in the sandbox with reading its counters. On main at b99d53d the whole
profile took 19 s / 41 s / 137 s at 5k / 10k / 20k functions.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import wasmtime

from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile.instrument import instrument
from lattice_desktop.profile.run import profile_case
from lattice_desktop.sandbox.compiler import compile_module
from tests.core.wat_cases import write_case
from tests.profile.many_functions import many_functions_wat

CASES = '[[case]]\nname = "only"\nkind = "stress"\ninput = "ab"\nexpected = "ab"\n'


def measure(count: int, folder: Path) -> dict[str, float]:
    """Seconds per step for a module of `count` functions."""
    wasm = bytes(wasmtime.wat2wasm(many_functions_wat(count)))
    # A budget of its own per run: the encoded module differs, so no compile cache answers.
    fuel = 50_000_000 + time.time_ns() % 1_000_000
    case = load_case(
        write_case(folder, CASES, fuel_limit=fuel, sandbox="wall_clock_s = 60\ncompile_timeout_s = 600")
    )
    entry = case.entry("only")
    times: dict[str, float] = {}
    started = time.perf_counter()
    profile = profile_case(wasm, case, entry)
    times["whole profile"] = time.perf_counter() - started
    times["run"] = profile.wall_time
    started = time.perf_counter()
    instrumented = instrument(wasm)
    times["instrument"] = time.perf_counter() - started
    started = time.perf_counter()
    encoded = instrumented.wasm(case.budget(entry) + 1)
    times["encode"] = time.perf_counter() - started
    started = time.perf_counter()
    compile_module(encoded, max_bytes=len(encoded), timeout=600)
    times["compile"] = time.perf_counter() - started
    print(
        f"{count:>7,} functions, {len(wasm):>9,} bytes: "
        + ", ".join(f"{k} {v:.2f} s" for k, v in times.items())
    )
    return times


def slope(sizes: list[int], seconds: list[float]) -> float:
    """The least-squares exponent k in seconds ≈ c · size^k."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-6)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2500, 5000, 10000, 20000])
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for n, count in enumerate(args.sizes):
            results.append(measure(count, Path(folder) / str(n)))
    print()
    print(
        f"{'step':<14}" + "".join(f"{f'{c:,}':>10}" for c in args.sizes) + "   slope  (s per 10k functions)"
    )
    for step in results[0]:
        per = [r[step] * 10_000 / c for r, c in zip(results, args.sizes, strict=True)]
        fitted = slope(args.sizes, [r[step] for r in results])
        print(f"{step:<14}" + "".join(f"{p:>10.2f}" for p in per) + f"   {fitted:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
