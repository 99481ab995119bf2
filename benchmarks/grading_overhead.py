"""Grading overhead: wall time of `grade` on a suite over the bare wasm calls, and the
speed-up of two worker threads over one. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/grading_overhead.py [--case lattice]

Without --case it builds a suite of stress-sized cases from a WAT module that spins for
a fixed number of iterations per input byte (about 0.3 s per case).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import wasmtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.sandbox.engine import seconds_to_epochs, shared_engine
from tests.core.wat_cases import SLOW_ECHO, write_case, write_submission


def synthetic_suite(folder: Path, cases: int) -> tuple[Path, Path]:
    spin = SLOW_ECHO.replace("(i32.const 100)", "(i32.const 400000)")
    body = "".join(
        f'[[case]]\nname = "stress-{i}"\nkind = "stress"\ninput = "{"x" * (200 + 10 * i)}"\n'
        f'expected = "{"x" * (200 + 10 * i)}"\n\n'
        for i in range(cases)
    )
    smoke = '[[case]]\nname = "smoke"\nkind = "smoke"\nbehaviour = "echo"\ninput = "x"\nexpected = "x"\n\n'
    case = write_case(folder / "case", smoke + body, fuel_limit=10**12)
    return case, write_submission(folder / "sub", spin)


def bare_calls(case, module: wasmtime.Module) -> float:
    """The same calls with nothing of the grader around them."""
    engine = shared_engine()
    started = time.perf_counter()
    for entry in case.cases:
        data = entry.input_bytes()
        store = wasmtime.Store(engine)
        store.set_fuel(case.budget(entry))
        store.set_epoch_deadline(seconds_to_epochs(case.sandbox.wall_clock))
        instance = wasmtime.Instance(store, module, [])
        exports = instance.exports(store)
        ptr = exports[case.contract.alloc](store, len(data))
        exports[case.contract.memory].write(store, data, ptr)
        packed = exports[case.contract.entry](store, ptr, len(data))
        exports[case.contract.memory].read(store, packed >> 32, (packed >> 32) + (packed & 0xFFFFFFFF))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", help="a case manifest or bundled name (default: synthetic suite)")
    parser.add_argument("--submission", help="with --case: the submission folder")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.case:
            case = load_case(resolve_case_path(args.case))
            sub_path = args.submission or str(case.samples_dir / "lines")
        else:
            case_path, sub_path = synthetic_suite(Path(tmp), cases=8)
            case = load_case(case_path)
        submission = load_submission(sub_path)
        module = compile_module(submission.module_path.read_bytes(), max_bytes=1 << 30, timeout=120).module
        grade(case, submission, workers=1)  # warm: compiled-module cache, page cache
        # Interleaved, so a noisy neighbour slows every kind alike; the minimum of each is
        # the best estimate of its own cost.
        bare, one, two = [], [], []
        for _ in range(args.repeat):
            bare.append(bare_calls(case, module))
            started = time.perf_counter()
            grade(case, submission, workers=1)
            one.append(time.perf_counter() - started)
            started = time.perf_counter()
            grade(case, submission, workers=2)
            two.append(time.perf_counter() - started)
    print(f"suite: {case.label}, {len(case.cases)} cases, submission {submission.name}")
    print(f"bare wasm calls            min {min(bare):7.3f} s   median {statistics.median(bare):7.3f} s")
    print(f"grade, 1 worker            min {min(one):7.3f} s   median {statistics.median(one):7.3f} s")
    print(f"grade, 2 workers           min {min(two):7.3f} s   median {statistics.median(two):7.3f} s")
    print(f"overhead ratio (1 worker / bare, minima)   {min(one) / min(bare):6.3f}   target < 1.10")
    print(f"speed-up of 2 workers over 1 (minima)      {min(one) / min(two):6.2f}x")


if __name__ == "__main__":
    main()
