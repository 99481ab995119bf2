"""Time to show an arbitrary tick of the largest bundled stress scenario.

    python benchmarks/factory_seek.py [--wasm PATH]

As the app does it: the keyframe walk (`Playback.prepare`) starts on a worker thread
the moment the scenario opens, and a seek asks for `state_at(tick, work)`.

* Right after opening (a fresh Playback each time, nothing cached): the time until the
  first state is on screen (a preview on the way, or the state itself) and until the
  exact state is, for the last tick (the worst case), the middle and a near tick.
* After the walk (warm): random seeks, median and max.
* A later session: keyframes were kept on disk by the first walk (the app also walks the
  demo's stress scenarios right after its first start), so a fresh open is warm.

The engine is the one the Factory tab uses: the fastest proven on the scenario (`lines`
for the bundled case; proving it is one run, paid once per machine). The first far seek
is also printed for the wasm reference, for comparison. Target: 0.5 s for the first far seek.

Prints figures; asserts nothing about time. Target: any tick on screen within a second.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.lattice.proven import proven_engine
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES
from lattice_desktop.work import Step, Work

STRESS = CASES / "lattice" / "stress" / "stress-512.lat"


def open_and_walk(data: bytes, engine) -> tuple[Playback, threading.Thread, float]:
    started = time.perf_counter()
    playback = Playback(data, engine)
    opened = time.perf_counter() - started
    walk = threading.Thread(target=playback.prepare, daemon=True)
    walk.start()
    return playback, walk, opened


def seek(playback: Playback, tick: int) -> tuple[float, float, int]:
    """(seconds to the first state shown, seconds to the exact state, previews)."""
    started = time.perf_counter()
    first: list[float] = []

    def preview(step: Step) -> None:
        if not first and step.item is not None:
            first.append(time.perf_counter() - started)

    playback.state_at(tick, Work(preview))
    exact = time.perf_counter() - started
    return (first[0] if first else exact), exact, len(first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wasm", type=Path, help="an engine module (default: the bundled reference)")
    parser.add_argument("--seeks", type=int, default=20)
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="lattice-seek-bench-")
    os.environ["LATTICE_DESKTOP_CACHE"] = cache  # cold means cold: no keyframes on disk
    data = STRESS.read_bytes()
    if args.wasm:
        engine = WasmEngine(args.wasm)
    else:
        case = load_case(CASES / "lattice" / "case.toml")
        expected = case.entry(STRESS.stem).expected_bytes()
        started = time.perf_counter()
        proven = proven_engine(case, data, expected)
        print(
            f"fastest proven engine: {proven.name} (proof {time.perf_counter() - started:.2f} s, "
            "once per machine)"
        )
        engine = proven.engine
        reference = Playback(data, reference_engine())
        _, exact, _ = seek(reference, reference.ticks)
        print(f"  first far seek (last tick) with the wasm reference: {exact:.3f} s")
        shutil.rmtree(Path(cache) / "keyframes", ignore_errors=True)

    probe = Playback(data, engine)
    ticks = probe.ticks
    del probe
    print(f"{STRESS.name}: {ticks} ticks")
    worst_first, worst_exact = 0.0, 0.0
    for label, tick in (("last tick", ticks), ("middle", ticks // 2), ("near the start", ticks // 10)):
        shutil.rmtree(Path(cache) / "keyframes", ignore_errors=True)
        playback, walk, opened = open_and_walk(data, engine)
        first, exact, _ = seek(playback, tick)
        again, _, _ = seek(playback, max(0, tick - 7))
        worst_first, worst_exact = max(worst_first, first), max(worst_exact, exact)
        print(
            f"  right after opening ({opened:.2f} s), seek to the {label} ({tick}): first state on screen "
            f"{first:.3f} s, exact state {exact:.3f} s; then 7 ticks back {again:.3f} s"
        )
        started = time.perf_counter()
        walk.join()
        print(
            f"    the walk finished {time.perf_counter() - started:.2f} s later, "
            f"{len(playback.keyframe_ticks())} keyframes"
        )
    print(
        f"  worst right after opening: first state {worst_first:.3f} s, exact state {worst_exact:.3f} s "
        f"(bounded by simulating the run once: the walk and the seek share one live engine)"
    )

    shutil.rmtree(Path(cache) / "keyframes", ignore_errors=True)
    playback, walk, _ = open_and_walk(data, engine)
    started = time.perf_counter()
    walk.join()
    kept = sum(len(getattr(k, "data", b"")) for k in playback._keyframes.values())
    print(
        f"  keyframe walk alone: {time.perf_counter() - started:.2f} s, "
        f"{len(playback.keyframe_ticks())} keyframes, {kept / 2**20:.1f} MiB packed"
    )
    rng = random.Random(1)
    warm = []
    for _ in range(args.seeks):
        tick = rng.randrange(ticks + 1)
        warm.append(seek(playback, tick)[1])
    print(
        f"  warm: median {statistics.median(warm):.3f} s, p90 {sorted(warm)[int(0.9 * len(warm))]:.3f} s, "
        f"max {max(warm):.3f} s over {len(warm)} seeks"
    )
    later = []
    for tick in (ticks, ticks // 2, ticks // 10, rng.randrange(ticks + 1)):
        started = time.perf_counter()
        fresh = Playback(data, engine)  # a new session: keyframes come from disk
        later.append(time.perf_counter() - started + seek(fresh, tick)[1])
    print(
        f"  a later session (keyframes on disk), open + seek: max {max(later):.3f} s, "
        f"median {statistics.median(later):.3f} s"
    )
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
