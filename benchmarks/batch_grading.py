"""Batch grading throughput: a field of submissions on the bundled case, graded by one
process one job after another, then by a local dask cluster of 1 and of 2 worker processes.

    python benchmarks/batch_grading.py [--submissions 24] [--case lattice]

The field is the case's sample submissions plus generated variants of them (the same module
with a custom section appended: another content hash, the same code and fuel). Every module
is compiled into the disk cache first, so each mode loads them alike. Prints figures; asserts
nothing about time. Targets: 2 workers ≥ 1.8× the serial throughput; scheduling overhead
≤ 5% of the bare wasm time per job.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.batch.backend import SerialBackend  # noqa: E402
from lattice_desktop.batch.driver import BatchResult, grade_batch  # noqa: E402
from lattice_desktop.batch.field import find_submissions  # noqa: E402
from lattice_desktop.manifest import load_case  # noqa: E402
from lattice_desktop.resources import resolve_case_path  # noqa: E402
from lattice_desktop.sandbox import compiler  # noqa: E402
from lattice_desktop.store.database import open_database  # noqa: E402
from lattice_desktop.store.writer import Writer  # noqa: E402


def custom_section(name: str) -> bytes:
    """A wasm custom section (id 0) holding only its name: changes the hash, not the code."""
    encoded = name.encode()
    body = _leb(len(encoded)) + encoded
    return b"\x00" + _leb(len(body)) + body


def _leb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def make_field(samples: Path, folder: Path, count: int) -> Path:
    sources = sorted(p for p in samples.iterdir() if (p / "submission.toml").is_file())
    for i in range(count):
        source = sources[i % len(sources)]
        target = folder / f"{source.name}-{i:03d}"
        target.mkdir(parents=True)
        module = (source / "engine.wasm").read_bytes()
        if i >= len(sources):
            module += custom_section(f"lattice-bench-variant-{i}")
        (target / "engine.wasm").write_bytes(module)
        model = source.name if i < len(sources) else f"{source.name}-v{i}"
        (target / "submission.toml").write_text(
            f'[submission]\nmodel = "{model}"\n\n[build]\nmodule = "engine.wasm"\n')
    return folder


def timed(label: str, case, submissions, backend, db: Path) -> tuple[float, BatchResult]:
    writer = Writer(open_database(db))
    compiler._memory_cache.clear()  # every mode starts from the disk cache
    started = time.perf_counter()
    result = grade_batch(case, submissions, backend=backend, writer=writer)
    elapsed = time.perf_counter() - started
    writer.close()
    print(f"  {label:<22} {elapsed:8.2f} s", flush=True)
    return elapsed, result


def fingerprint(result: BatchResult) -> dict[str, tuple]:
    return {r.report.submission.name: (r.report.verdict, tuple(x.fuel for x in r.report.results))
            for r in result.runs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=24)
    parser.add_argument("--case", default="lattice")
    args = parser.parse_args()
    from lattice_desktop.batch.dask_backend import DaskBackend, open_cluster

    root = Path(tempfile.mkdtemp(prefix="batch-bench-"))
    os.environ["LATTICE_DESKTOP_CACHE"] = str(root / "cache")  # the workers inherit it
    try:
        case = load_case(resolve_case_path(args.case))
        submissions, problems = find_submissions(
            [make_field(case.samples_dir, root / "field", args.submissions)])
        assert not problems, problems
        for s in submissions:
            compiler.compile_module(s.module_path.read_bytes(), max_bytes=case.sandbox.max_module_bytes,
                                    timeout=case.sandbox.compile_timeout)
        print(f"{len(submissions)} submissions on {case.label} · load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        serial, reference = timed("serial, one process", case, submissions, SerialBackend(), root / "s.db")
        figures = {}
        for workers in (1, 2):
            started = time.perf_counter()
            with open_cluster(workers=workers) as client:
                print(f"  (cluster of {workers} up in {time.perf_counter() - started:.2f} s)")
                figures[workers], result = timed(f"dask, {workers} worker(s)", case, submissions,
                                                 DaskBackend(client), root / f"d{workers}.db")
            assert fingerprint(result) == fingerprint(reference), "the cluster graded differently"
        jobs = sum(1 for r in reference.runs for x in r.report.results if x.fuel is not None)
        bare = sum(x.wall_time for r in reference.runs for x in r.report.results)
        overhead = (figures[1] - serial) / jobs
        print(f"\njobs run: {jobs} (smoke and stress; skipped ones excluded) · bare wasm time "
              f"{bare:.2f} s ({1000 * bare / jobs:.1f} ms per job)")
        print(f"throughput: serial {jobs / serial:.2f} jobs/s · 1 worker {jobs / figures[1]:.2f} · "
              f"2 workers {jobs / figures[2]:.2f}")
        print(f"2 workers / serial: {serial / figures[2]:.2f}x (target ≥ 1.8x) · "
              f"1 worker / serial: {serial / figures[1]:.2f}x")
        print(f"scheduling overhead per job (1 worker − serial): {1000 * overhead:.2f} ms = "
              f"{100 * overhead * jobs / bare:.1f}% of the bare wasm time per job (target ≤ 5%)")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
