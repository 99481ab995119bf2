"""The Transcript tab on a long run: a trace of N events (default 1M, the mix of
benchmarks/harness_scoring.py) is scored and stored with its transcript, then opened in a
separate process in the real Transcript tab (offscreen Qt), which reports:

- the time from asking for the run to its first rows shown (target ≤ 1 s),
- scrolling: a jump to each of 200 random places, the time until the rows there are read
  and painted (median and worst), and 300 page-downs painted one after another,
- a kind filter and a metric's evidence over every event, and a search (run on a worker),
- the GUI thread's longest stall while scrolling, filtering and searching: a 5 ms heartbeat
  timer on the GUI thread, and the longest gap between two of its beats, in wall-clock time
  (what a user feels, waits for a busy machine's CPU included) and in the GUI thread's own
  CPU time (the work it did between two beats: what the app itself blocks it with),
- that process's peak memory (target ≤ 1 GB), and the store's size for the transcript.

    .venv/bin/python benchmarks/harness_transcript.py [--events 1000000]
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BOX = Path(__file__).resolve().parents[1] / "resources" / "harness" / "webshop.box.toml"


def store(db: Path, events: int) -> None:
    from benchmarks.harness_scoring import trace_text
    from lattice_desktop.harness import parse_box
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.harness_runs import insert_runs, score_text
    from lattice_desktop.store.transcripts import TranscriptPage
    from lattice_desktop.store.writer import Writer

    text = trace_text(events)
    box_text = BOX.read_text()
    started = time.perf_counter()
    scored = score_text(parse_box(box_text, source=str(BOX)), box_text, "bench.jsonl", text)
    scored_at = time.perf_counter()
    writer = Writer(open_database(db))
    (run_id,) = writer.call(insert_runs, [scored])
    stored_at = time.perf_counter()
    size = sum(len(bytes(p.data)) for p in TranscriptPage.select(TranscriptPage.data).iterator())
    writer.close()
    print(f"events                      {events:>12,}")
    print(f"score + make transcript     {scored_at - started:>10.2f} s")
    print(f"store (one transaction)     {stored_at - scored_at:>10.2f} s")
    print(f"transcript pages            {size / 1e6:>10.1f} MB (trace {len(text) / 1e6:.1f} MB)")
    print(
        f"import process peak memory  {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>10.0f} MB"
    )
    return run_id


def open_and_scroll(db: Path, run_id: int) -> None:
    """In its own process: only what the app holds to show the run counts for its memory."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from lattice_desktop.store.database import open_database
    from lattice_desktop.ui.harness.transcript_model import LOADING
    from lattice_desktop.ui.harness.transcript_tab import TranscriptTab

    app = QApplication([])
    open_database(db)
    beats: list[tuple[float, float]] = []  # (wall clock, the GUI thread's CPU time) per beat
    heartbeat = QTimer(interval=5)
    heartbeat.timeout.connect(lambda: beats.append((time.perf_counter(), time.thread_time())))
    heartbeat.start()

    def longest_stall() -> tuple[float, float]:
        """The longest gap between two heartbeats since the last call (less the 5 ms period),
        in wall-clock and in GUI-thread CPU milliseconds. It first lets the heartbeat beat
        for 50 ms, so the gap of the work just done is closed (without that, steps that find
        their rows already read run back to back with no beat between them, and their gaps
        add up)."""
        end = time.perf_counter() + 0.05  # a few beats after the work, so its gap is closed
        while time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.001)
        pairs = list(itertools.pairwise(beats))
        beats[:] = beats[-1:]
        wall = max((b[0] - a[0] for a, b in pairs), default=0.0)
        cpu = max((b[1] - a[1] for a, b in pairs), default=0.0)
        return max(0.0, wall - 0.005) * 1000, cpu * 1000

    def stall_text(stalls: list[tuple[float, float]]) -> str:
        wall, cpu = max(w for w, _c in stalls), max(c for _w, c in stalls)
        return f"{wall:>10.1f} ms longest wall, {cpu:.1f} ms GUI-thread CPU"

    tab = TranscriptTab()
    tab.resize(1200, 800)
    tab.show()
    model, table = tab.model, tab.table

    def visible_loaded() -> bool:
        top = table.rowAt(0)
        bottom = table.rowAt(table.viewport().height() - 1)
        bottom = model.rowCount() - 1 if bottom < 0 else bottom
        col = 3
        return top >= 0 and all(model.index(r, col).data() != LOADING for r in range(top, bottom + 1))

    repaints: list[float] = []  # GUI-thread CPU seconds of each synchronous repaint

    def settle(condition) -> float:
        start = time.perf_counter()
        while not condition():
            app.processEvents()
            time.sleep(0.001)
        painting = time.thread_time()
        table.viewport().repaint()
        repaints.append(time.thread_time() - painting)
        return time.perf_counter() - start

    start = time.perf_counter()
    tab.show_run(run_id)
    settle(lambda: model.head is not None and visible_loaded())
    first = time.perf_counter() - start
    print(f"first rows shown            {first * 1000:>10.0f} ms  ({model.rowCount():,} rows)")

    longest_stall()
    rng = random.Random(7)
    bar = table.verticalScrollBar()
    jumps = []
    stalls = []  # per step: its longest heartbeat gap
    for _ in range(200):
        bar.setValue(rng.randrange(bar.maximum() + 1))
        jumps.append(settle(visible_loaded))
        stalls.append(longest_stall())
    print(
        f"random jump, rows read      {statistics.median(jumps) * 1000:>10.1f} ms median, {max(jumps) * 1000:.1f} ms worst"
    )
    bar.setValue(0)
    settle(visible_loaded)
    steps = []
    for _ in range(300):
        bar.setValue(bar.value() + bar.pageStep())
        steps.append(settle(visible_loaded))
        stalls.append(longest_stall())
    print(
        f"page down, painted          {statistics.median(steps) * 1000:>10.1f} ms median, {max(steps) * 1000:.1f} ms worst"
    )
    print(f"GUI stall while scrolling   {stall_text(stalls)} (worst step)")
    print(
        f"  of which one repaint      {max(repaints) * 1000:>10.1f} ms CPU at most "
        f"({statistics.median(repaints) * 1000:.1f} ms median: drawing the rows on screen)"
    )

    longest_stall()
    t0 = time.perf_counter()
    tab.kind_buttons["tool_call"].setChecked(False)
    kind_ms, kind_rows = (time.perf_counter() - t0) * 1000, model.rowCount()
    t0 = time.perf_counter()
    tab.show_evidence("cost")
    evidence_ms = (time.perf_counter() - t0) * 1000
    print(f"filter out tool calls       {kind_ms:>10.1f} ms ({kind_rows:,} rows left)")
    print(f"a metric's evidence (Cost)  {evidence_ms:>10.1f} ms ({model.rowCount():,} rows)")
    settle(visible_loaded)
    print(f"GUI stall while filtering   {stall_text([longest_stall()])} (the filters run on it)")
    tab.clear_evidence()
    tab.kind_buttons["tool_call"].setChecked(True)
    settle(visible_loaded)
    longest_stall()
    t0 = time.perf_counter()
    tab.search_box.setText("read_file")
    tab.search()
    settle(lambda: not tab.busy and tab._hits is not None)
    search_s = time.perf_counter() - t0
    print(f"search every event          {search_s:>10.2f} s on a worker ({model.rowCount():,} hits)")
    print(f"GUI stall while searching   {stall_text([longest_stall()])}")
    print(
        f"app process peak memory     {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>10.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--store", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--open", nargs=2, metavar=("DB", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.store:
        store(Path(args.store), args.events)
        return
    if args.open:
        open_and_scroll(Path(args.open[0]), int(args.open[1]))
        return
    # Each phase in a process of its own, so each peak memory is that phase's alone.
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        subprocess.run(
            [sys.executable, __file__, "--store", str(db), "--events", str(args.events)], check=True
        )
        subprocess.run([sys.executable, __file__, "--open", str(db), "1"], check=True)


if __name__ == "__main__":
    main()
