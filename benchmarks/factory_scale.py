"""The Factory tab on a big factory, offscreen: how soon the map shows, how long a frame
takes on the GUI thread while panning and playing, a warm seek, the play rate at speed
1,000 beside the engine stepping alone, P (play to the first wrong tick), and the peak memory.

    QT_QPA_PLATFORM=offscreen python benchmarks/factory_scale.py [--size N] [--ticks T]

`--size 512` opens the bundled stress-512.lat; any other size a generated N×N scenario
(`scenario generate --size N N`). Prints one line per figure (`first frame 1.23 s`, …)
and the parts that make them up; asserts nothing. Targets at 2048²: first frame ≤ 3 s,
median frame ≤ 16 ms, warm seek ≤ 1 s, playing ≥ 30 ticks/s shown and ≥ half the
engine alone, P to stuck_rings' tick 21 ≤ 2 s, peak memory ≤ 2 GB.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from lattice_desktop.lattice import divergence
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.simulators import WasmSimulator, state_from_records
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.lattice.submission_records import open_submission, submission_checksums
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES
from lattice_desktop.services import divergence_hunt
from lattice_desktop.services.divergence_hunt import hunt_divergence
from lattice_desktop.ui.factory.tab import FactoryTab
from lattice_desktop.work import Work

LATTICE = CASES / "lattice"


def wait(app: QApplication, condition, timeout: float = 600.0) -> float:
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise TimeoutError("the tab did not get there in time")
        app.processEvents()
        time.sleep(0.001)
    return time.perf_counter() - started


def scenario(size: int, ticks: int, folder: Path) -> Path:
    if size == 512:
        return LATTICE / "stress" / "stress-512.lat"
    path = folder / f"generated-{size}.lat"
    started = time.perf_counter()
    path.write_text(generate(1, width=size, height=size, ticks=ticks))
    print(
        f"  (generated {size}×{size}, {path.stat().st_size / 1e6:.1f} MB, in {time.perf_counter() - started:.1f} s)"
    )
    return path


def timed_frames(tab: FactoryTab) -> list[float]:
    """Seconds the GUI thread spends on each new state shown (drawing included)."""
    frames: list[float] = []
    shown = tab._on_loaded

    def on_loaded(state) -> None:
        started = time.perf_counter()
        shown(state)
        frames.append(time.perf_counter() - started)

    tab.loader.loaded.disconnect(tab._on_loaded)
    tab.loader.loaded.connect(on_loaded)
    played = tab.player.show_played

    def on_played(state) -> None:  # the states Play draws
        started = time.perf_counter()
        played(state)
        frames.append(time.perf_counter() - started)

    tab.player.show_played = on_played  # type: ignore[method-assign]
    return frames


def pan(app: QApplication, tab: FactoryTab, steps: int = 60) -> list[float]:
    """Seconds per panning step at 8 pixels a cell: move the view, redraw what shows."""
    canvas, out = tab.canvas, []
    canvas.focus_cell(canvas.scenario.width * canvas.scenario.height // 2, span=canvas.box.width() / 8)
    for i in range(steps):
        started = time.perf_counter()
        canvas.box.translateBy(x=3 if i % 40 < 20 else -3, y=1)
        canvas._redraw.stop()
        canvas.draw()
        app.processEvents()
        out.append(time.perf_counter() - started)
    return out


def play_rate(app: QApplication, tab: FactoryTab) -> float:
    """Ticks a second the drawn tick moves while playing the whole run at speed 1,000 (every
    state drawn counts once; drawing included), and the GUI thread's time per state."""
    tab.show_tick(0)
    wait(app, lambda: tab.settled)
    tab.transport.speed.setValue(1000)
    drawn: list[tuple[float, int]] = []
    gui: list[float] = []
    show = tab.player.show_played

    def timed(state) -> None:
        started = time.perf_counter()
        show(state)
        app.processEvents()  # the map's repaint
        gui.append(time.perf_counter() - started)
        drawn.append((time.perf_counter(), state.tick))

    tab.player.show_played = timed  # type: ignore[method-assign]
    said: list[str] = []
    tab.timer.timeout.connect(lambda: said.append(tab.transport.status.text()))
    tab.toggle_play()
    wait(app, lambda: not tab.timer.isActive(), timeout=1200)
    print(f"  (the status while playing: {said[len(said) // 2] if said else '—'!r})")
    tab.player.show_played = show  # type: ignore[method-assign]
    (t0, k0), (t1, k1) = drawn[0], drawn[-1]
    print(
        f"  (played ticks {k0:,} to {k1:,} in {t1 - t0:.1f} s: {len(drawn):,} states drawn, "
        f"{len(drawn) / max(t1 - t0, 1e-9):.1f} a second; GUI thread per state: median "
        f"{statistics.median(gui) * 1000:.1f} ms, max {max(gui) * 1000:.0f} ms)"
    )
    return (k1 - k0) / max(t1 - t0, 1e-9)


def engine_limit(tab: FactoryTab) -> float:
    """The engine Play used, stepping alone through the run: no records, no drawing. Also
    prints what a drawn state adds: its records read (on the stepping thread, the engine
    waiting) and its decoding (on the decoding thread, beside the engine)."""
    playback, engine = tab.playback, tab.player.last_engine
    sim = playback.fork(0) if engine is None else WasmSimulator(engine, playback.data)
    steps: list[float] = []
    started, cpu = time.perf_counter(), time.thread_time()
    for _ in range(playback.ticks):
        began = time.perf_counter()
        sim.step(1)
        steps.append(time.perf_counter() - began)
    limit = playback.ticks / (time.perf_counter() - started)
    cpu = (time.thread_time() - cpu) / playback.ticks
    reads, decodes = [], []
    for _ in range(3):
        began = time.perf_counter()
        records = sim.records()
        reads.append(time.perf_counter() - began)
        began = time.perf_counter()
        state_from_records(playback.scenario, records, tick=sim.tick, grid=playback.grid)
        decodes.append(time.perf_counter() - began)
    print(
        f"  (the engine's bare step: median {statistics.median(steps) * 1000:.1f} ms a tick "
        f"({cpu * 1000:.1f} ms of CPU: {1 / max(cpu, 1e-9):.1f} ticks/s on a core of its own), "
        f"{steps[0] * 1000:.1f} ms at tick 1, {steps[-1] * 1000:.1f} ms at the last; a state drawn adds "
        f"its records read, {min(reads) * 1000:.1f} ms with the engine waiting, and its decoding, "
        f"{min(decodes) * 1000:.1f} ms on the decoding thread beside it)"
    )
    return limit


class Phases:
    """When each part of P ran (wall-clock seconds from the start of P), per thread."""

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[float, float]]] = {}
        self.zero = time.perf_counter()

    def timed(self, name: str, fn):
        def run(*args, **kwargs):
            began = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                span = (began - self.zero, time.perf_counter() - self.zero)
                self.spans.setdefault(name, []).append(span)

        return run

    def say(self, name: str) -> str:
        return ", ".join(f"{a:.2f}–{b:.2f} s" for a, b in self.spans.get(name, [])) or "not run"


def timed_hunt(wrong, playback, trusted, differs) -> tuple[float, object, Phases]:
    """P from tick 0, as the tab runs it, with each of its parts timed."""
    phases = Phases()
    saved = (
        divergence_hunt.submission_checksums,
        divergence_hunt.submission_pairs,
        divergence.diff_pairs,
        playback.records_at,
    )
    divergence_hunt.submission_checksums = phases.timed("sub checksums", saved[0])
    divergence_hunt.submission_pairs = phases.timed("sub records", saved[1])
    divergence.diff_pairs = phases.timed("diff", saved[2])
    playback.records_at = phases.timed("ref records", saved[3])
    if trusted is not None:
        trusted.run = phases.timed("ref checksums", trusted.run)
    elif playback.engine is not None:
        playback.engine.run = phases.timed("ref checksums", playback.engine.run)
    try:
        started = phases.zero = time.perf_counter()
        _, _, found = hunt_divergence(wrong, playback, 0, Work(), engine=trusted, differs=differs)
        return time.perf_counter() - started, found, phases
    finally:
        (
            divergence_hunt.submission_checksums,
            divergence_hunt.submission_pairs,
            divergence.diff_pairs,
            playback.records_at,
        ) = saved
        for engine in (trusted, playback.engine):
            if engine is not None:
                vars(engine).pop("run", None)


class ResidentPeak(threading.Thread):
    """The most memory this process and its children held at once, sampled from /proc (the
    census runs in a child; getrusage's figure for a child counts the parent's pages it
    started with, so it cannot be added to the app's)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = self.children = 0
        self._done = threading.Event()
        self.start()

    def run(self) -> None:
        while not self._done.wait(0.05):
            kids = _resident(_children(os.getpid()))
            total = _resident([os.getpid()]) + kids
            if total > self.peak:
                self.peak, self.children = total, kids

    def stop(self) -> None:
        self._done.set()
        self.join()


def _children(pid: int) -> list[int]:
    """Every descendant of `pid` (children of any of its threads, and theirs)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids = [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            continue
        for kid in kids:
            found += [kid, *_children(kid)] if Path(f"/proc/{kid}").exists() else []
    return found


def _resident(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):  # it has just ended
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * resource.getpagesize()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--ticks", type=int, default=200)
    parser.add_argument("--wrong", default="stuck_rings", help="the bundled wrong sample P looks for")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    memory = ResidentPeak()
    folder = Path(tempfile.mkdtemp())
    os.environ.setdefault("LATTICE_DESKTOP_CACHE", str(folder / "cache"))  # a cold keyframe cache
    path = scenario(args.size, args.ticks, folder)
    print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")

    QThreadPool.globalInstance().setMaxThreadCount(
        max(4, QThreadPool.globalInstance().maxThreadCount())
    )  # as the app
    tab = FactoryTab()
    tab.resize(1100, 680)
    tab.show()
    frames = timed_frames(tab)
    started = time.perf_counter()
    tab.show_scenario_files([path])
    first = wait(app, lambda: tab.canvas.state is not None and tab.canvas.pixels is not None)
    print(f"first frame {first:.2f} s")
    checksums = wait(app, lambda: tab.snapshots is not None and len(tab.snapshots) > 0) + first
    print(f"  (snapshot checksums after {checksums:.1f} s: the reference's whole run)")

    opening = list(frames)  # the states shown while opening: the first one starts the side work
    frames.clear()
    panning = pan(app, tab)
    tab.canvas.fit()
    tab.transport.speed.setValue(30)
    tab.toggle_play()
    wait(app, lambda: not tab.timer.isActive() or time.perf_counter() - started > checksums + 8, timeout=60)
    played = len(frames)
    if tab.timer.isActive():
        tab.toggle_play()
    every = panning + frames
    print(f"median frame {statistics.median(every) * 1000:.1f} ms")
    print(
        f"  (panning at 8 px a cell: median {statistics.median(panning) * 1000:.1f} ms; playing at fit: "
        f"{played} states shown, median {statistics.median(frames) * 1000 if frames else 0:.1f} ms, "
        f"max {max(frames, default=0) * 1000:.0f} ms)"
    )

    print(
        f"  (while opening: {len(opening)} states shown, the first taking {opening[0] * 1000 if opening else 0:.0f} ms "
        "of the GUI thread: its drawing plus starting the census, the checksums and the keyframe walk)"
    )

    walk = wait(app, lambda: tab.playback is not None and tab.playback.prepared >= 1.0, timeout=1200)
    print(f"  (keyframes cover the run {walk:.1f} s later)")
    seeks = []
    rng = random.Random(1)
    for _ in range(5):
        target = rng.randrange(1, tab.playback.ticks)
        started = time.perf_counter()
        tab.show_tick(target)
        seeks.append(wait(app, lambda t=target: tab.settled and tab.canvas.state.tick == t))
    print(f"warm seek {statistics.median(seeks):.2f} s")
    print(f"  (5 seeks, max {max(seeks):.2f} s)")

    shown_rate = play_rate(app, tab)
    limit = engine_limit(tab)
    print(f"playing shows {shown_rate:.1f} ticks/s at speed 1000")
    print(f"fastest engine steps {limit:.1f} ticks/s")
    print(
        f"  (shown / engine alone: {shown_rate / limit:.2f}, both measured in this run; the engine: {tab.player.last_engine or tab.playback.engine_name})"
    )

    playback = tab.playback
    confirmed = tab.confirmation
    expected = np.asarray(tab.snapshots.expected)  # the file's snapshot table (the reference's)
    trusted = (
        WasmEngine(confirmed.fast)
        if confirmed is not None
        and confirmed.parted_at is None
        and confirmed.confirmed_to >= playback.ticks - playback.ticks % playback.scenario.snapshot
        else None
    )
    tab.shutdown()
    QThreadPool.globalInstance().waitForDone(60000)
    # P (play to the next divergence) from tick 0, as the tab runs it: the playback's engine
    # for the reference's per-tick checksums, the submission in the grader's sandbox (under
    # the largest stress case's fuel budget: a generated scenario has none of its own).
    case = load_case(CASES / "lattice" / "case.toml")
    wrong = open_submission(str(LATTICE / "submissions" / args.wrong), case, case.stress[-1].name)
    # The snapshot checksums a graded run would hold, as the tab has them: the first snapshot
    # that differs caps P's windows (worked out before P, as grading did).
    graded = Snapshots(
        playback.scenario.snapshot,
        expected,
        np.array(submission_checksums(wrong, playback.data), np.uint64),
    )
    differs = graded.next_differing(0)
    print(f"  (the graded run's first differing snapshot: tick {differs})")
    for attempt in ("first wrong tick", "  (again"):
        spent, found, phases = timed_hunt(wrong, playback, trusted, differs)
        where = (
            "none: it agrees on every tick"
            if found is None
            else f"tick {found.tick:,}, {len(found.diffs):,} records"
        )
        parts = (
            f"the submission's per-tick checksums {phases.say('sub checksums')} beside the reference's "
            f"{phases.say('ref checksums')}; its records (a second run from tick 0) {phases.say('sub records')} "
            f"beside the reference's from its keyframes {phases.say('ref records')}; the diff {phases.say('diff')}"
        )
        if attempt == "first wrong tick":
            print(f"P from tick 0 to the first wrong tick {spent:.1f} s")
            print(
                f"  ({args.wrong}: {where}; found tick by tick from tick 0, {found.submission_runs if found else 0} submission runs; "
                f"the reference's side by {confirmed.name + ' (confirmed on this file)' if trusted else playback.engine_name})"
            )
            print(f"  (P's parts: {parts})")
        else:
            print(
                f"{attempt}: the reference's per-tick checksums and the submission's answers kept: {spent:.1f} s)"
            )
    memory.stop()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {max(own, memory.peak / 2**20):.0f} MB")
    print(
        f"  (the app's process {own:.0f} MB at its peak; the app and its child processes together, "
        f"sampled every 50 ms: {memory.peak / 2**20:.0f} MB, the census's child then {memory.children / 2**20:.0f} MB)"
    )


if __name__ == "__main__":
    main()
