"""Parse a spec-valid 4096² scenario with many sources: the time and the memory it takes.

    python benchmarks/scenario_parse.py [--every N]

Each row is lanes of N cells: a source, N - 2 belts east and a sink, so a grid with
4096²/N sources and as many `source` lines (every 16th cell by default: 1,048,576 sources,
about 45 MB of text). Prints the size, the parse time and the peak memory the process
grew by; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice.scenario import MAX_SCENARIO_BYTES, parse_scenario

SIDE = 4096


def scenario_text(every: int) -> bytes:
    lanes = SIDE // every
    row = (b"S" + b">" * (every - 2) + b"K") * lanes + b"." * (SIDE - lanes * every)
    out = [
        b"# 4096x4096, a source every %d cells\nlattice 1\nsize 4096 4096\nticks 100\nsnapshot 10\n" % every
    ]
    out.append(b"item 1\nitem 2 plate\n")
    out.extend(
        b"".join(
            b"source %d %d E %d %d\n" % (x, y, 1 + (x + y) % 255, 1 + x % 7)
            for x in range(0, lanes * every, every)
        )
        for y in range(SIDE)
    )
    out.append(b"grid\n")
    out.append(b"\n".join([row] * SIDE) + b"\n")
    return b"".join(out)


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=16, help="one source per this many cells (>= 3)")
    args = parser.parse_args(argv)
    data = scenario_text(max(3, args.every))
    before = peak_mib()
    start, cpu = time.perf_counter(), time.process_time()
    scenario = parse_scenario(data, source="bench.lat")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    grown = peak_mib() - before
    print(
        f"scenario: {scenario.width}x{scenario.height}, {len(scenario.sources):,} sources, "
        f"{len(data) / 1e6:.1f} MB (limit {MAX_SCENARIO_BYTES / 1e6:.0f} MB)"
    )
    print(
        f"parse: {seconds:.2f} s ({cpu:.2f} s of CPU); peak memory grew by {grown:,.0f} MiB "
        f"(process peak {peak_mib():,.0f} MiB, the text itself {len(data) / 2**20:,.0f} MiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
