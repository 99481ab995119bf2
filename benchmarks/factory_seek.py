"""Time to show an arbitrary tick of the largest bundled stress scenario.

    python benchmarks/factory_seek.py [--wasm PATH]

Cold seeks (nothing cached), then seeks after the keyframe walk (`Playback.prepare`).
Prints figures; asserts nothing about time. Target: any tick within a second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice.playback import Playback, reference_engine  # noqa: E402
from lattice_desktop.lattice.wasm_engine import WasmEngine  # noqa: E402
from lattice_desktop.resources import CASES  # noqa: E402

STRESS = CASES / "lattice" / "stress" / "stress-512.lat"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wasm", type=Path, help="an engine module (default: the bundled reference)")
    parser.add_argument("--seeks", type=int, default=20)
    args = parser.parse_args()
    engine = WasmEngine(args.wasm) if args.wasm else reference_engine()
    data = STRESS.read_bytes()
    started = time.perf_counter()
    playback = Playback(data, engine)
    print(f"{STRESS.name}: {playback.ticks} ticks · {playback.engine_name} · "
          f"opened in {time.perf_counter() - started:.2f} s")
    rng = random.Random(1)
    targets = [rng.randrange(playback.ticks + 1) for _ in range(args.seeks)]
    cold = []
    for tick in targets[: max(3, args.seeks // 4)]:
        t = time.perf_counter()
        playback.state_at(tick)
        cold.append(time.perf_counter() - t)
    print(f"  before the keyframe walk: median {statistics.median(cold):.3f} s, max {max(cold):.3f} s")
    t = time.perf_counter()
    playback.prepare()
    print(f"  keyframe walk: {time.perf_counter() - t:.2f} s, {len(playback.keyframe_ticks())} keyframes")
    warm = []
    for tick in targets:
        t = time.perf_counter()
        playback.state_at(tick + 1 if tick < playback.ticks else tick - 1)
        warm.append(time.perf_counter() - t)
    print(f"  after: median {statistics.median(warm):.3f} s, max {max(warm):.3f} s over {len(warm)} seeks")


if __name__ == "__main__":
    main()
