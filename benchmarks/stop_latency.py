"""How long the grader takes to stop when it is told to, or when a limit is reached.

    .venv/bin/python benchmarks/stop_latency.py [--repeat N]

The tests check *that* each of these stops (the verdict, the exit status, nothing left
running); how fast is a figure of the machine, so it is measured here:

- Ctrl+C while a stress case loops for ever → the process exits (130, run stored cancelled);
- a build that sleeps for ever under a 1 s build limit → the grade returns;
- a module that takes seconds to compile under a 1 s compile limit → the refusal;
- the app (`lattice-desktop open FILE`, offscreen) told to stop: Ctrl+C while it opens a large
  generated scenario, SIGTERM while it plays one, and its window closed during the opening
  or just after it, while the census is counted (signal or close → exit; and the window's
  close itself, which is what a user waits for).

Each figure is the median of N tries, with the quiet cost of starting the same grade
subprocess measured in the same run, so a busy machine shows as both numbers growing.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' cases, reused
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission
from tests.hostile.test_builds import build_folder
from tests.trust.test_cancel_and_close import LOOPS_ON_STRESS, grade_command
from tests.ui.stopping_app import AppRun, Stopped, closed_by_itself, scenario, stop_by_signal

NEVER = 10**15  # fuel: only Ctrl+C or a time limit stops these


def quiet_grade(tmp: Path, n: int) -> float:
    """A whole `grade` of a correct echo: the cost of the subprocess itself."""
    case = write_case(tmp / f"quiet-case-{n}", ECHO_CASES)
    sub = write_submission(tmp / f"quiet-sub-{n}", ECHO)
    started = time.perf_counter()
    subprocess.run(grade_command(sub, case, tmp / f"quiet-{n}.db"), capture_output=True, check=False)
    return time.perf_counter() - started


def ctrl_c_during_stress(tmp: Path, n: int) -> float:
    case = write_case(tmp / f"cc-case-{n}", ECHO_CASES, fuel_limit=NEVER, sandbox="wall_clock_s = 60")
    sub = write_submission(tmp / f"cc-sub-{n}", LOOPS_ON_STRESS)
    with subprocess.Popen(
        grade_command(sub, case, tmp / f"cc-{n}.db"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stderr is not None
        for line in child.stderr:
            if line.startswith("[1/2]"):
                break
        time.sleep(0.5)  # the stress case is looping now
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        child.wait(timeout=120)
        elapsed = time.perf_counter() - sent
    if child.returncode != 130:
        raise SystemExit(f"Ctrl+C: exit {child.returncode}, expected 130")
    return elapsed


def hanging_build(tmp: Path, n: int) -> float:
    case = write_case(tmp / f"hb-case-{n}", ECHO_CASES, sandbox="build_timeout_s = 1\nwall_clock_s = 20")
    sub = build_folder(tmp / f"hb-sub-{n}", "echo starting", "sleep 600")
    started = time.perf_counter()
    done = subprocess.run(
        grade_command(sub, case, tmp / f"hb-{n}.db", "--build", "--allow-unisolated-build"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if "time limit" not in done.stdout + done.stderr:
        raise SystemExit("the hanging build was not stopped at its time limit:\n" + done.stdout + done.stderr)
    return time.perf_counter() - started


def compile_bomb() -> float:
    from lattice_desktop.sandbox.compiler import CompileError, compile_module
    from tests.hostile.test_modules import many_functions

    bomb = many_functions(3000, 100)
    started = time.perf_counter()
    try:
        compile_module(bomb, max_bytes=8 * 2**20, timeout=1.0)
    except CompileError:
        return time.perf_counter() - started
    raise SystemExit("the compile bomb compiled within 1 s: no limit measured")


def app_stopped(stop: Callable[[Path], Stopped], tmp: Path) -> Stopped:
    home = Path(tempfile.mkdtemp(prefix="app-", dir=tmp))
    stopped = stop(home)
    if stopped.returncode != 0 or "Traceback" in stopped.stderr or stopped.left:
        raise SystemExit(f"the app did not stop cleanly: {stopped}")
    return stopped


def app_figures(tmp: Path, size: int, repeat: int) -> None:
    large, small = scenario(tmp, size), scenario(tmp, 32, ticks=3000)
    runs: dict[str, Callable[[Path], Stopped]] = {
        f"Ctrl+C during open ({size}²) → exit": lambda home: stop_by_signal(
            _ready(AppRun(home, "opening", "open", str(large))), signal.SIGINT
        ),
        "SIGTERM while playing → exit": lambda home: stop_by_signal(
            _ready(AppRun(home, "playing", "open", str(small))), signal.SIGTERM
        ),
        f"close 2 s into the open ({size}²) → exit": lambda home: closed_by_itself(
            AppRun(home, "opening", "open", str(large), close_after=2)
        ),
        f"close during census, just after the open ({size}²) → exit": lambda home: closed_by_itself(
            AppRun(home, "opened", "open", str(large), close_after=0.2)
        ),
    }
    for label, stop in runs.items():
        stopped = [app_stopped(stop, tmp) for _ in range(repeat)]
        report(label, [s.seconds for s in stopped])
        closes = [s.close_seconds for s in stopped if s.close_seconds is not None]
        if closes:
            report("    of which the window's close itself", closes)


def _ready(run: AppRun) -> AppRun:
    run.wait_for("READY")
    return run


def report(label: str, times: list[float]) -> None:
    print(
        f"{label}: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}; {len(times)} tries)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size", type=int, default=1024, help="side of the large generated scenario")
    parser.add_argument("--app-only", action="store_true", help="only the app's figures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        app_figures(tmp, args.size, args.repeat)
        if args.app_only:
            return 0
        report(
            "a whole quiet `grade` subprocess (for scale)", [quiet_grade(tmp, n) for n in range(args.repeat)]
        )
        report(
            "Ctrl+C in a looping stress case → exit 130",
            [ctrl_c_during_stress(tmp, n) for n in range(args.repeat)],
        )
        report(
            "`grade --build` of a build that hangs, 1 s limit",
            [hanging_build(tmp, n) for n in range(args.repeat)],
        )
        report(
            "a compile that takes seconds, 1 s limit → refused", [compile_bomb() for _ in range(args.repeat)]
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
