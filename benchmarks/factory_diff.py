"""The Diff view's submission state on the largest bundled stress scenario: the records a
submission returns, drawn as a factory. Prints the Python loop (`FactoryState.from_records`)
against the checked vectorised path (`checked_state`) the Diff view uses, in one run.

    python benchmarks/factory_diff.py [--tick N]

Prints figures; asserts nothing about time (the two states are compared for equality).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.lattice.simulators import checked_state
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.resources import CASES

STRESS = CASES / "lattice" / "stress" / "stress-512.lat"


def timed(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tick", type=int, default=None, help="default: the middle of the run")
    args = parser.parse_args()
    playback = Playback(STRESS.read_bytes(), reference_engine())
    tick = playback.ticks // 2 if args.tick is None else args.tick
    pairs = playback.records_at(tick)
    # The records as a submission's decode gives them.
    records = dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True))
    scenario = playback.scenario
    loop, slow = timed(lambda: FactoryState.from_records(scenario, records, tick=tick), 3)
    vectorised, fast = timed(lambda: checked_state(scenario, records, tick=tick, grid=playback.grid), 7)
    same = (
        all(
            np.array_equal(getattr(slow, f), getattr(fast, f))
            for f in ("entity", "direction", "slots", "source_buffer")
        )
        and slow.sink_counts == fast.sink_counts
        and slow.assemblers == fast.assemblers
    )
    print(f"{STRESS.name}, tick {tick:,}: {len(records):,} records ({scenario.width}×{scenario.height})")
    print(f"Python loop (FactoryState.from_records)  median {loop:7.3f} s")
    print(
        f"checked + vectorised (checked_state)      median {vectorised:7.3f} s   {loop / vectorised:5.1f}x faster"
    )
    print(f"same state: {same}")


if __name__ == "__main__":
    main()
