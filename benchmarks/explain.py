"""What explaining a divergence costs on the bundled stress-512.

    python benchmarks/explain.py [--engine scale_bug|stuck_rings|HSLIP] [--case stress-512]
        [--cells first,middle,last] [--parallel 1] [--ahead]

For the wrong engine (a sample by name, or a held-out slip by number, tests/lattice/
held_out_slips), finds the first wrong tick on the case, reads both states at that tick and
the agreed state the tick before (the part the Factory tab has already done when it shows
the first wrong tick), then times:

* the diagnosis alone (`diagnose`: the reference's tick traced from the agreed state,
  the conservation laws on both sides, the rules ranked): target <= 5 s;
* a "Why?" trail from a cell that differs at the first divergent snapshot (`--cells`: the
  first, middle or last of them), back to its first wrong decision, both engines' records
  read as the tab reads them: each tick once, both sides at the tick shown and at the first
  wrong tick held already (the tab has shown them), the reference's from its keyframes
  (walked first, as the tab walks them when a scenario opens), `--parallel` submission runs at once;
  with `--ahead`, the submission's records at the `ladder` ticks fetched first (what the
  tab fetches in the background once it shows a tick past the first wrong one).
  It prints the time and how many times the trail ran the submission (each run simulates
  from tick 0, spec §8): target <= 2 s.

Prints figures; asserts nothing about time (the machine is shared: run it quiet, nice'd).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.divergence import find_divergence, first_difference
from lattice_desktop.lattice.explain.diagnosis import diagnose
from lattice_desktop.lattice.explain.tracer import TracingFactory, prepare
from lattice_desktop.lattice.explain.trail import ladder, why_trail
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.records import as_pairs, key_cells
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case


def _engine(name: str) -> WasmEngine:
    if name.isdigit():
        from tests.lattice.held_out_slips.slips import LIMITS, build

        return WasmEngine(build(int(name)), limits=LIMITS)
    return WasmEngine(build_engines.SUBMISSIONS_DIR / name / "engine.wasm")


class _Reader:
    """One side's records by tick, each tick read once (thread-safe enough: a tick read twice
    at once is only counted twice); `runs` counts the reads."""

    def __init__(self, read: Callable[[int], object]) -> None:
        self.read = read
        self.held: dict[int, object] = {}
        self.runs = 0

    def __call__(self, tick: int):
        if tick not in self.held:
            self.runs += 1
            self.held[tick] = self.read(tick)
        return self.held[tick]

    def keep(self, ticks: set[int]) -> None:
        """Forget every tick but these (read now if need be)."""
        self.held = {t: self(t) for t in ticks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="scale_bug")
    parser.add_argument("--case", default="stress-512")
    parser.add_argument("--cells", default="middle", help="which differing cells to trace: first,middle,last")
    parser.add_argument("--parallel", type=int, default=1, help="submission runs at once in a trail")
    parser.add_argument(
        "--ahead",
        action="store_true",
        help="fetch the ladder's ticks first, as the tab does in the background",
    )
    args = parser.parse_args()
    os.environ.setdefault("LATTICE_DESKTOP_CACHE", tempfile.mkdtemp(prefix="explain-bench-"))
    entry = load_case(demo_case()).entry(args.case)
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    lines, wrong = _engine("lines"), _engine(args.engine)
    expected = [
        int.from_bytes(entry.expected_bytes()[i : i + 8], "little")
        for i in range(0, len(entry.expected_bytes()), 8)
    ]
    row = first_difference(expected, wrong.run(data))
    if row is None:
        print(f"{args.engine} agrees with the reference on {args.case}: nothing to explain")
        return 1
    snapshot = (row + 1) * scenario.snapshot
    ref_at = _Reader(lambda t: lines.records(data, t))
    sub_at = _Reader(lambda t: wrong.records(data, t))
    start = time.perf_counter()
    tables = threading.Thread(target=prepare, args=(scenario,))  # as explain_scenario does
    tables.start()
    found = find_divergence(
        data,
        agrees=row * scenario.snapshot,
        differs=snapshot,
        reference_checksums=lines.run,
        submission_checksums=wrong.run,
        reference_records=ref_at,
        submission_records=sub_at,
    )
    print(
        f"{args.engine} on {args.case}: first wrong tick {found.tick} ({found.extent(scenario.width)}), "
        f"found in {time.perf_counter() - start:.1f} s"
    )
    tables.join()
    print(
        f"  the reference's tables for the scenario, built meanwhile: ready {time.perf_counter() - start:.1f} s in"
    )
    before = as_pairs(ref_at(found.tick - 1))
    reference = as_pairs(ref_at(found.tick))
    submission = as_pairs(sub_at(found.tick))

    for label in ("first (tables built during the search)", "again"):
        start = time.perf_counter()
        d = diagnose(
            scenario,
            case=args.case,
            tick=found.tick,
            before=before,
            reference=reference,
            submission=submission,
        )
        took = time.perf_counter() - start
        print(f"diagnosis, {label}: {took:.2f} s (target <= 5 s)")
    start = time.perf_counter()
    TracingFactory(scenario)
    print(f"  building those tables alone: {time.perf_counter() - start:.2f} s")
    top = d.rules[0].rule if d.rules else "(none)"
    print(f"  {d.summary}")
    print(f"  ranked: {', '.join(r.rule for r in d.rules[:4]) or 'none'} (top: {top})")

    ref_s, sub_s = as_pairs(ref_at(snapshot)), as_pairs(sub_at(snapshot))
    differing = sorted(set(key_cells(ref_s[:, 0]).tolist()) ^ set(key_cells(sub_s[:, 0]).tolist()))
    differing = differing or found.cells
    picks = {"first": differing[0], "middle": differing[len(differing) // 2], "last": differing[-1]}
    ahead = ladder(found.agreed, snapshot) if args.ahead else []
    if ahead:  # what the tab fetches in the background once it shows the tick (kept on disk)
        start = time.perf_counter()
        for t in ahead:
            sub_at(t)
        print(
            f"fetched ahead (before any click): the submission's records at {len(ahead)} ticks, "
            f"{len(ahead)} runs, {time.perf_counter() - start:.1f} s"
        )
    # The tab reads the reference's side from its keyframes (walked in the background once
    # the scenario opens, long done when a reviewer asks Why?), not by a run from tick 0.
    start = time.perf_counter()
    playback = Playback(data, lines, scenario=scenario)
    playback.prepare()
    print(
        f"  the keyframe walk of the reference's side (the tab's, in the background): {time.perf_counter() - start:.1f} s"
    )
    keyframed = _Reader(playback.records_at)
    keyframed.held = dict(ref_at.held)
    ref_at = keyframed
    for which in args.cells.split(","):
        cell = picks[which]
        # what the tab holds when Why? is asked: both sides at the tick shown and at the first
        # wrong tick, and the submission's answers fetched ahead
        ref_at.keep({snapshot, found.tick})
        sub_at.keep({snapshot, found.tick, *ahead})
        for label in ("first look", "again (each tick read once already)"):
            runs, reads = sub_at.runs, ref_at.runs
            start = time.perf_counter()
            trail = why_trail(
                scenario,
                cell=cell,
                tick=snapshot,
                agreed=found.agreed,
                reference_records=ref_at,
                submission_records=sub_at,
                cheap=ahead,
                parallel=args.parallel,
            )
            took = time.perf_counter() - start
            print(
                f"Why? trail of the {which} differing cell ({cell % scenario.width}, {cell // scenario.width}) "
                f"at tick {snapshot}, {label}: {took:.2f} s (target <= 2 s), {sub_at.runs - runs} submission "
                f"runs ({ref_at.runs - reads} of the reference), {len(trail)} steps, ends at tick "
                f"{trail[-1].tick} ({trail[-1].cell[0]}, {trail[-1].cell[1]})"
            )
    print(f"  load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {args.parallel} probe(s) at once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
