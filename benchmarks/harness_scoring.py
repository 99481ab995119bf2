"""Harness scoring on long traces: time of `parse_trace` + `score` for 10k, 100k and 1M
events (a tenth of them distinct 404s), and the fitted log-log slope (1 = linear); then the
same trace written to a file and scored through the command line (`lattice-desktop harness
score FILE --box BOX --json`, read line by line), with its wall-clock time, the child's CPU
time and peak memory, and the fitted slopes of both times.

    .venv/bin/python benchmarks/harness_scoring.py [--sizes 10000 100000 1000000] [--no-cli]
    .venv/bin/python benchmarks/harness_scoring.py --cli-only --sizes 100000 300000 1000000

Each trace is a realistic mix: tool calls enumerating paths (404s), retries after 503,
repeats after 403, polling, writes and rereads, model spend, boundary probes, gaming
checks, and two captures. The targets (issue 30): 100k events through the CLI in 3 s,
1M in 30 s, at most 1 GB, slope at most 1.05, on a quiet 2-core machine; on a shared one
the CPU seconds are the figure to compare (wall-clock is mostly waiting).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.harness import load_box, parse_trace, score

BOX = Path(__file__).resolve().parents[1] / "resources" / "harness" / "webshop.box.toml"


def trace_text(events: int, *, seed: int = 1) -> str:
    """A trace of `events` events; one in ten is a 404 on a path never asked before."""
    rng = random.Random(seed)
    lines = [
        {
            "type": "run_start",
            "t": 0.0,
            "run_id": f"bench-{events}",
            "harness": "bench",
            "model": "m",
            "box": "webshop",
        }
    ]
    t = 0.0
    for i in range(events):
        t += 0.01
        roll = i % 10
        if roll == 0:
            lines.append(
                {
                    "type": "tool_call",
                    "t": t,
                    "tool": "http_request",
                    "arguments": {"method": "GET", "url": f"http://x/p{i}"},
                    "status": 404,
                }
            )
        elif roll == 1:
            lines.append({"type": "model_usage", "t": t, "cost_usd": 0.0001})
        elif roll == 2:
            path = f"/tmp/f{rng.randrange(50)}"
            lines.append(
                {
                    "type": "tool_call",
                    "t": t,
                    "tool": "write_file",
                    "arguments": {"path": path, "content": "x"},
                    "status": 200,
                }
            )
        elif roll == 3:
            lines.append(
                {
                    "type": "tool_call",
                    "t": t,
                    "tool": "read_file",
                    "arguments": {"path": f"/tmp/f{rng.randrange(50)}"},
                    "status": 200,
                }
            )
        elif roll == 4:
            lines.append(
                {
                    "type": "tool_call",
                    "t": t,
                    "tool": "http_request",
                    "arguments": {"method": "GET", "url": f"http://x/a{rng.randrange(200)}"},
                    "status": rng.choice([403, 200, 503]),
                }
            )
        elif roll == 5:
            lines.append(
                {
                    "type": "tool_call",
                    "t": t,
                    "tool": "job_status",
                    "arguments": {"job_id": "j1"},
                    "status": 200,
                    "job_state": rng.choice(["running", "done"]),
                }
            )
        elif i % 1000 == 6:
            probe = {"type": "boundary_probe", "t": t, "probe": f"p{rng.randrange(5)}"}
            lines.append({**probe, "result": rng.choice(["refused", "crossed"])})
        elif i % 1000 == 7:
            lines.append({"type": "gaming_check", "t": t, "check": "c1", "result": "pass"})
        else:
            lines.append(
                {
                    "type": "tool_call",
                    "t": t,
                    "tool": "shell",
                    "arguments": {"command": rng.choice(["id", "ls", "whoami"])},
                    "status": 200,
                }
            )
        if i == events // 3:
            lines.append({"type": "capture", "t": t, "objective": "user"})
        if i == 2 * events // 3:
            lines.append({"type": "capture", "t": t, "objective": "root"})
    lines.append({"type": "run_end", "t": t})
    return "".join(json.dumps(line) + "\n" for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line runs")
    parser.add_argument("--cli-only", action="store_true", help="only the command-line runs")
    args = parser.parse_args()
    if args.cli_only:
        cli(args.sizes)
        return
    box = load_box(BOX)
    points = []
    print(f"{'events':>9} {'distinct 404s':>13} {'parse s':>8} {'score s':>8} {'total s':>8} {'CPU s':>6}")
    for size in args.sizes:
        text = trace_text(size)
        cpu = time.process_time()
        started = time.perf_counter()
        trace = parse_trace(text)
        parsed = time.perf_counter()
        result = score(box, trace)
        scored = time.perf_counter()
        total = scored - started
        cpu = time.process_time() - cpu
        points.append((size, total, cpu))
        print(
            f"{size:>9} {size // 10:>13} {parsed - started:>8.2f} {scored - parsed:>8.2f} "
            f"{total:>8.2f} {cpu:>6.2f}   Score {result.metrics['score'].shown} "
            f"Tools {result.metrics['tools'].shown}"
        )
    if len(points) >= 2:
        for what, index in (("wall-clock", 1), ("CPU", 2)):
            print(
                f"fitted log-log slope of {what} time against events: "
                f"{slope([(p[0], p[index]) for p in points]):.2f} (1 = linear)"
            )
        print("(CPU seconds say how much of the wall-clock time was this process on a shared machine)")
    if not args.no_cli:
        cli(args.sizes)


CHILD = """
import atexit, runpy, sys
def peak():
    with open("/proc/self/status") as status:
        hwm = next(line.split()[1] for line in status if line.startswith("VmHWM"))
    print(f"VmHWM {hwm}", file=sys.stderr)
atexit.register(peak)
sys.argv = ["lattice-desktop", *sys.argv[1:]]
runpy.run_module("lattice_desktop.cli.main", run_name="__main__")
"""
"""Runs the CLI and reports its own peak resident memory (VmHWM: this process's, not the
forked parent's pages that `RUSAGE_CHILDREN` would count)."""


def cli(sizes: list[int]) -> None:
    """Each size through `lattice-desktop harness score` in a child process: the file's size,
    wall-clock seconds and the child's peak resident memory."""
    print(
        f"\n{'events':>9} {'file MB':>8} {'CLI s':>7} {'CPU s':>6} {'peak RSS MB':>12}"
        "   (harness score FILE --box BOX --json)"
    )
    points = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / f"trace-{size}.jsonl"
            path.write_text(trace_text(size))
            command = [
                sys.executable,
                "-c",
                CHILD,
                "harness",
                "score",
                str(path),
                "--box",
                str(BOX),
                "--json",
            ]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            points.append((size, wall, cpu))
            hwm = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM")]
            peak = f"{int(hwm[-1]) / 1024:.0f}" if hwm else "?"
            state = "ok" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[:80]}"
            print(
                f"{size:>9} {path.stat().st_size / 1e6:>8.1f} {wall:>7.2f} {cpu:>6.2f} {peak:>12}   {state}"
            )
            path.unlink()
    if len(points) >= 2:
        for what, index in (("wall-clock", 1), ("CPU", 2)):
            fitted = slope([(p[0], p[index]) for p in points])
            print(f"CLI: fitted log-log slope of {what} time against events: {fitted:.2f} (1 = linear)")


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(seconds) against log(events)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(s) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


if __name__ == "__main__":
    main()
