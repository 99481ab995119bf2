"""Fuel of the bundled reference and lines engines on every stress case, and the wall
time of the wasm reference against the Python reference on one mid-size scenario.

    python benchmarks/lattice_fuel.py [--only NAME ...]

Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.lattice.build_engines import SUBMISSIONS_DIR
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine


def items_in_flight(engine: WasmEngine, data: bytes, tick: int) -> int:
    return sum(1 for key in engine.records(data, tick) if key >> 56 == 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="stress case names to run")
    args = parser.parse_args(argv)
    reference = WasmEngine(SUBMISSIONS_DIR / "reference" / "engine.wasm")
    lines = WasmEngine(SUBMISSIONS_DIR / "lines" / "engine.wasm")
    print(f"wasmtime {version('wasmtime')} (fuel is comparable within one release line)")
    header = f"{'case':<12} {'items':>8} {'reference fuel':>16} {'lines fuel':>14} {'ratio':>7}"
    print(header + f" {'ref s':>7} {'lines s':>8}")
    for case in stress_scenarios():
        if args.only and case.name not in args.only:
            continue
        data = case.text().encode()
        start = time.perf_counter()
        ref_fuel = reference.fuel_of(data)
        ref_s = time.perf_counter() - start
        start = time.perf_counter()
        lines_fuel = lines.fuel_of(data)
        lines_s = time.perf_counter() - start
        items = items_in_flight(lines, data, case.snapshot)
        print(
            f"{case.name:<12} {items:>8} {ref_fuel:>16,} {lines_fuel:>14,} "
            f"{ref_fuel / lines_fuel:>6.1f}x {ref_s:>7.2f} {lines_s:>8.2f}"
        )
    text = generate(4, width=96, height=96, ticks=200, snapshot=20, density=1.0, noise=0.02)
    data = text.encode()
    start = time.perf_counter()
    wasm = reference.run(data)
    wasm_s = time.perf_counter() - start
    start = time.perf_counter()
    python = simulate(parse_scenario(data))
    python_s = time.perf_counter() - start
    print(
        f"mid-size 96x96, 200 ticks: wasm reference {wasm_s:.3f}s, Python reference "
        f"{python_s:.3f}s ({python_s / wasm_s:.0f}x), checksums "
        f"{'agree' if wasm == python else 'DISAGREE'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
