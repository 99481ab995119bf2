"""What explaining a divergence costs on the bundled stress-512.

    python benchmarks/explain.py [--engine scale_bug|stuck_rings|HSLIP] [--case stress-512]

For the wrong engine (a sample by name, or a held-out slip by number, tests/lattice/
held_out_slips), finds the first wrong tick on the case, reads both states at that tick and
the agreed state the tick before (the part the Factory tab has already done when it shows
the first wrong tick), then times:

* the diagnosis alone (`diagnose`: the reference's tick traced from the agreed state,
  the conservation laws on both sides, the rules ranked): target <= 5 s;
* a "Why?" trail from a cell that differs at the first divergent snapshot, back to its
  first wrong decision, both engines' records read as the tab reads them (each tick once;
  the submission's from the on-disk answer cache after the first look): target <= 2 s.

Prints figures; asserts nothing about time (the machine is shared: run it quiet, nice'd).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.divergence import find_divergence, first_difference
from lattice_desktop.lattice.explain.diagnosis import diagnose
from lattice_desktop.lattice.explain.tracer import TracingFactory, prepare
from lattice_desktop.lattice.explain.trail import why_trail
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="scale_bug")
    parser.add_argument("--case", default="stress-512")
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
    start = time.perf_counter()
    tables = threading.Thread(target=prepare, args=(scenario,))  # as explain_scenario does
    tables.start()
    found = find_divergence(
        data,
        agrees=row * scenario.snapshot,
        differs=snapshot,
        reference_checksums=lines.run,
        submission_checksums=wrong.run,
        reference_records=lambda t: lines.records(data, t),
        submission_records=lambda t: wrong.records(data, t),
    )
    print(
        f"{args.engine} on {args.case}: first wrong tick {found.tick} ({found.extent(scenario.width)}), "
        f"found in {time.perf_counter() - start:.1f} s"
    )
    tables.join()
    print(
        f"  the reference's tables for the scenario, built meanwhile: ready {time.perf_counter() - start:.1f} s in"
    )
    before = as_pairs(lines.records(data, found.tick - 1))
    reference = as_pairs(lines.records(data, found.tick))
    submission = as_pairs(wrong.records(data, found.tick))

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

    cached: dict[tuple[str, int], object] = {}

    def reader(name: str, engine: WasmEngine):
        def records(t: int):
            if (name, t) not in cached:
                cached[name, t] = engine.records(data, t)
            return cached[name, t]

        return records

    ref_at, sub_at = reader("reference", lines), reader("submission", wrong)
    ref_s, sub_s = as_pairs(ref_at(snapshot)), as_pairs(sub_at(snapshot))
    differing = sorted(set(key_cells(ref_s[:, 0]).tolist()) ^ set(key_cells(sub_s[:, 0]).tolist()))
    cell = differing[len(differing) // 2] if differing else found.cells[0]
    for label in ("first look", "again (each tick read once already)"):
        start = time.perf_counter()
        trail = why_trail(
            scenario,
            cell=cell,
            tick=snapshot,
            agreed=found.agreed,
            reference_records=ref_at,
            submission_records=sub_at,
        )
        took = time.perf_counter() - start
        print(
            f"Why? trail of ({cell % scenario.width}, {cell // scenario.width}) at tick {snapshot}, {label}: "
            f"{took:.2f} s (target <= 2 s), {len(trail)} steps, ends at tick {trail[-1].tick} "
            f"({trail[-1].cell[0]}, {trail[-1].cell[1]})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
