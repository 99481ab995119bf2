"""Profiling overhead: the wall time of profiling a sample on the bundled case's largest
stress case, against the plain graded case's. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/profile_overhead.py [--sample lines] [--case NAME] [--repeat 3]

"profile" is everything `lattice-desktop profile` does for a module it has not seen:
print, instrument and encode the module, compile it in the child process, run it in the
sandbox and read the counters. "instrumented run" is that run alone. The target is at most
3× the graded case.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.grading.grader import grade_entry
from lattice_desktop.lattice.build_engines import SUBMISSIONS_DIR
from lattice_desktop.manifest import load_case
from lattice_desktop.profile.run import largest_stress, profile_case
from lattice_desktop.resources import demo_case
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.work import Work


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", default="lines")
    parser.add_argument("--case", help="case name (default: the largest stress case)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    case = load_case(demo_case())
    entry = case.entry(args.case) if args.case else largest_stress(case)
    wasm = (SUBMISSIONS_DIR / args.sample / "engine.wasm").read_bytes()
    module = compile_module(wasm, max_bytes=1 << 24, timeout=60).module
    graded, profiled, runs = [], [], []
    for _ in range(args.repeat):
        started = time.perf_counter()
        result = grade_entry(case, entry, module, Work())
        graded.append(time.perf_counter() - started)
        started = time.perf_counter()
        profile = profile_case(wasm, case, entry)
        profiled.append(time.perf_counter() - started)
        runs.append(profile.wall_time)
        assert profile.total == result.fuel, "the profile does not add up to the graded fuel"
    g, p, r = statistics.median(graded), statistics.median(profiled), statistics.median(runs)
    print(f"{args.sample} on {entry.name}: {result.fuel:,} fuel; profile total {profile.total:,} (equal)")
    print(
        f"instrumented fuel {profile.instrumented_fuel:,} ({profile.instrumented_fuel / profile.total:.2f}× the original)"
    )
    print(f"graded case       {g:7.3f} s  (median of {args.repeat})")
    print(f"profile, all of it {p:6.3f} s  ratio {p / g:.2f}×  (target ≤ 3×)")
    print(f"instrumented run  {r:7.3f} s  ratio {r / g:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
