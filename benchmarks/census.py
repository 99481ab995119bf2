"""The census of each stress case of the bundled Lattice case: its CPU time, counted afresh.

    python benchmarks/census.py [--only stress-512 ...]

Counts each stress case with `lattice.census.census` (the reference rules, phase 2 over
numpy arrays) and prints its CPU time (`time.process_time`), its cells × ticks, whether
the result equals the census the case ships (`census.json`), and the total. Run it on a
quiet machine and give the load average with the figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice.census import census, stored_census
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="the stress cases to count (default: all)")
    args = parser.parse_args()
    case = load_case(demo_case())
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    total = 0.0
    for entry in case.stress:
        if args.only and entry.name not in args.only:
            continue
        data = entry.input_bytes()
        scenario = parse_scenario(data, source=entry.name)
        start = time.process_time()
        counted = census(scenario)
        seconds = time.process_time() - start
        total += seconds
        same = counted == stored_census(data, case_dir=case.path.parent)
        print(
            f"{entry.name:12s} {scenario.cells * scenario.ticks / 1e6:6.1f} M cell-ticks  "
            f"census {seconds:6.2f} s CPU  {'same as' if same else 'DIFFERS from'} census.json",
            flush=True,
        )
    print(f"total        census {total:.2f} s CPU; load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
