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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.batch.backend import SerialBackend
from lattice_desktop.batch.driver import BatchResult, grade_batch
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.sandbox import compiler
from lattice_desktop.store.database import open_database
from lattice_desktop.store.writer import Writer

IDLE_SECONDS = 5.0  # how long an idle cluster is watched for its housekeeping CPU


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
            f'[submission]\nmodel = "{model}"\n\n[build]\nmodule = "engine.wasm"\n'
        )
    return folder


def cpu(client) -> float:
    """CPU seconds used so far by this process (client, and a local cluster's scheduler) and
    by every worker process of `client`'s cluster."""
    workers = sum(client.run(time.process_time).values()) if client is not None else 0.0
    return time.process_time() + workers


def timed(label: str, case, submissions, backend, db: Path, client=None) -> tuple[float, float, BatchResult]:
    """Wall and CPU seconds of one batch, and its result."""
    writer = Writer(open_database(db))
    compiler._memory_cache.clear()  # every mode starts from the disk cache
    cpu_before, started = cpu(client), time.perf_counter()
    result = grade_batch(case, submissions, backend=backend, writer=writer)
    elapsed, used = time.perf_counter() - started, cpu(client) - cpu_before
    writer.close()
    print(f"  {label:<22} {elapsed:8.2f} s wall · {used:8.2f} s CPU (all processes)", flush=True)
    return elapsed, used, result


SPIN = "x = 0\nfor i in range(30_000_000): x += i"


def machine_parallelism() -> float:
    """How much faster two CPU-bound processes finish together than one after the other,
    right now: 2.0 on two idle cores, less when other work shares them."""

    def spin(count: int) -> float:
        started = time.perf_counter()
        children = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
        for child in children:
            child.wait()
        return time.perf_counter() - started

    return 2 * spin(1) / spin(2)


def bare_serial(result: BatchResult) -> float:
    return sum(x.wall_time for r in result.runs for x in r.report.results)


def fingerprint(result: BatchResult) -> dict[str, tuple]:
    return {
        r.report.submission.name: (r.report.verdict, tuple(x.fuel for x in r.report.results))
        for r in result.runs
    }


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
            [make_field(case.samples_dir, root / "field", args.submissions)]
        )
        assert not problems, problems
        for s in submissions:
            compiler.compile_module(
                s.module_path.read_bytes(),
                max_bytes=case.sandbox.max_module_bytes,
                timeout=case.sandbox.compile_timeout,
            )
        print(
            f"{len(submissions)} submissions on {case.label} · load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        serial, serial_cpu, reference = timed(
            "serial, one process", case, submissions, SerialBackend(), root / "s.db"
        )
        wall, used, idle = {}, {}, {}
        for workers in (1, 2):
            started = time.perf_counter()
            with open_cluster(workers=workers) as client:
                client.run(time.process_time)  # the workers are up and answering
                print(f"  (cluster of {workers} up in {time.perf_counter() - started:.2f} s)")
                before = cpu(client)
                time.sleep(IDLE_SECONDS)
                idle[workers] = (cpu(client) - before) / IDLE_SECONDS
                wall[workers], used[workers], result = timed(
                    f"dask, {workers} worker(s)",
                    case,
                    submissions,
                    DaskBackend(client),
                    root / f"d{workers}.db",
                    client,
                )
            busy = sum(x.wall_time for r in result.runs for x in r.report.results)
            print(
                f"    workers busy running wasm {100 * busy / (workers * wall[workers]):.0f}% of the "
                f"time (wasm takes {busy / bare_serial(reference):.2f}x its serial wall time: "
                "the CPU share each process gets)"
            )
            assert fingerprint(result) == fingerprint(reference), "the cluster graded differently"
        jobs = sum(1 for r in reference.runs for x in r.report.results if x.fuel is not None)
        bare = bare_serial(reference)
        print(
            f"\njobs run: {jobs} (smoke and stress; skipped ones excluded) · wasm wall time in the "
            f"serial run {bare:.2f} s ({1000 * bare / jobs:.1f} ms per job)"
        )
        print(
            f"throughput: serial {jobs / serial:.2f} jobs/s · 1 worker {jobs / wall[1]:.2f} · "
            f"2 workers {jobs / wall[2]:.2f}"
        )
        print(
            f"2 workers / serial: {serial / wall[2]:.2f}x (target ≥ 1.8x) · "
            f"1 worker / serial: {serial / wall[1]:.2f}x · what the machine gave two plain "
            f"CPU-bound processes just after: {machine_parallelism():.2f}x"
        )
        print(
            f"bare wasm CPU (the serial run's CPU): {serial_cpu:.2f} s · idle cluster housekeeping: "
            f"{idle[1]:.3f} CPU-s/s (1 worker), {idle[2]:.3f} (2 workers)"
        )
        for label, extra in (
            ("wall, 1 worker − serial", wall[1] - serial),
            ("CPU, 1 worker − serial", used[1] - serial_cpu),
            ("CPU, 2 workers − serial", used[2] - serial_cpu),
            ("CPU, 1 worker − serial − idle housekeeping", used[1] - serial_cpu - idle[1] * wall[1]),
        ):
            print(
                f"scheduling overhead per job ({label}): {1000 * extra / jobs:.2f} ms = "
                f"{100 * extra / serial_cpu:.1f}% of the bare wasm CPU per job (target ≤ 5%)"
            )
        print(f"load average after: {os.getloadavg()[0]:.1f} (other work on the machine skews wall times)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
