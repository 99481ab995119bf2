"""The real app in a process of its own, brought to a state (idle, opening a large scenario,
playing, grading) and then stopped: by a signal, or by closing its window at a chosen moment.

The app starts through `launcher.main`, as `lattice-desktop` starts it, in a session of its
own (a Ctrl+C at a terminal is a SIGINT to the whole foreground group: `stop_by_signal`
sends it so), on an empty HOME, offscreen. It prints READY when the state is reached and,
when it closes its own window, how long that close took. Shared by the tests and
benchmarks/stop_latency.py, which times the same runs."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from tests.hostile.processes import descendants, with_environment
from tests.ui.app_process import ROOT

# argv: STATE CLOSE_AFTER_S LAUNCHER-ARGS…; CLOSE_AFTER_S < 0: wait for a signal instead.
SCRIPT = r"""
import sys, time
from PySide6.QtCore import QTimer
from lattice_desktop import launcher
from lattice_desktop.ui.window import main_window

STATE, CLOSE_AFTER = sys.argv[1], float(sys.argv[2])
graded = []

def reached(window):
    tab = window.factory_tab
    if STATE == "opening":
        return tab._open_query.busy
    if STATE == "opened":
        return tab.playback is not None
    if STATE == "idle":
        return tab.settled and tab.census.census is not None
    if STATE == "playing":
        if tab.settled and not tab.timer.isActive():
            tab.toggle_play()
        return tab.timer.isActive()
    if STATE == "grading":
        return bool(graded)
    raise SystemExit(f"no such state {STATE}")

def close(window):
    started = time.perf_counter()
    window.close()
    print(f"CLOSED {time.perf_counter() - started:.3f}", flush=True)

def watch(window):
    window.grading.job_started.connect(graded.append)
    poll = QTimer(window, interval=20)

    def check():
        if reached(window):
            poll.stop()
            print("READY", flush=True)
            if CLOSE_AFTER >= 0:
                QTimer.singleShot(int(CLOSE_AFTER * 1000), lambda: close(window))

    poll.timeout.connect(check)
    poll.start()

shown = main_window.MainWindow.show
main_window.MainWindow.show = lambda self: (watch(self), shown(self))[1]
sys.exit(launcher.main(sys.argv[3:]))
"""


@dataclass(frozen=True)
class Stopped:
    returncode: int
    stderr: str
    seconds: float  # from the signal (or the start of the window's close) to the process's exit
    close_seconds: float | None  # how long the window's close itself took, when it closed itself
    left: list[int]  # processes the app started that outlived it


def scenario(folder: Path, size: int, *, ticks: int | None = None) -> Path:
    """`lattice-desktop scenario generate --size N N` > folder/sN.lat, as a user makes one."""
    path = folder / f"s{size}-{ticks}.lat"
    if not path.exists():
        extra = ["--ticks", str(ticks)] if ticks else []
        generated = subprocess.run(
            [
                sys.executable,
                "-m",
                "lattice_desktop",
                "scenario",
                "generate",
                "--size",
                str(size),
                str(size),
                *extra,
            ],
            capture_output=True,
            check=True,
            cwd=ROOT,
        )
        path.write_bytes(generated.stdout)
    return path


class AppRun:
    """One app process, started in `state` with `args` (launcher arguments)."""

    def __init__(self, home: Path, state: str, *args: str, close_after: float = -1) -> None:
        self.token = f"LATTICE_STOP_TEST={uuid.uuid4().hex}"
        name, value = self.token.split("=")
        env = {
            **os.environ,
            "HOME": str(home / "home"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "LATTICE_DESKTOP_CACHE": str(home / "cache"),
            "LATTICE_DESKTOP_DB": str(home / "lattice.db"),
            "QT_QPA_PLATFORM": "offscreen",
            name: value,
        }
        self.errors = home / f"stderr-{state}-{uuid.uuid4().hex[:8]}.txt"
        with self.errors.open("w") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SCRIPT, state, str(close_after), *args],
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                cwd=ROOT,
                env=env,
                start_new_session=True,
            )
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())
        self.lines.put("")  # the end

    def wait_for(self, marker: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                # Never leave the app behind: a live one would hold its database's one-instance
                # socket, and a later app on the same path would wait on the "already open" dialog.
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
                raise AssertionError(f"no {marker} in {timeout:.0f} s:\n{self.errors.read_text()}") from None
            if line.startswith(marker):
                return line
            if line == "" and self.process.poll() is not None:
                raise AssertionError(f"the app ended before {marker}:\n{self.errors.read_text()}")

    def finish(
        self, since: float, started: list[int], *, closed: float | None = None, timeout: float = 300
    ) -> Stopped:
        """Wait for the exit; what it left behind: of the processes it had `started`, and
        of those carrying the environment mark every child inherits, the ones still alive."""
        code = self.process.wait(timeout=timeout)
        seconds = time.perf_counter() - since
        self._reader.join(timeout)
        assert self.process.stdout is not None
        self.process.stdout.close()
        # A killed child's last moment: up to 0.2 s, but no longer once none is left (one
        # that is gone does not come back, and only a live process passes the mark on).
        deadline = time.monotonic() + 0.2
        while True:
            left = sorted({p for p in started if _alive(p)} | set(with_environment(self.token.encode())))
            if not left or time.monotonic() >= deadline:
                return Stopped(code, self.errors.read_text(), seconds, closed, left)
            time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def stop_by_signal(run: AppRun, sig: int) -> Stopped:
    """SIGINT as a terminal's Ctrl+C sends it (to the whole group), SIGTERM as `kill` does."""
    started = descendants(run.process.pid)
    sent = time.perf_counter()
    if sig == signal.SIGINT:
        os.killpg(run.process.pid, sig)
    else:
        run.process.send_signal(sig)
    return run.finish(sent, started)


def closed_by_itself(run: AppRun) -> Stopped:
    """The window's own close (the close button's path), already scheduled by `close_after`."""
    started = descendants(run.process.pid)
    closed = float(run.wait_for("CLOSED").split()[1])
    return run.finish(time.perf_counter() - closed, started, closed=closed)  # since the close began
