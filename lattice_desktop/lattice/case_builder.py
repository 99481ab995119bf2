"""Rebuild the bundled Lattice case: stress scenarios, expected answers, the fuel ceiling.

    python -m lattice_desktop.lattice.case_builder [--case-dir resources/cases/lattice] [--check]

Expected answers come from the wasm `reference` engine (checked against the Python
reference engine on the smoke tests, and against `lines` on the stress cases). The
ceiling is set from the `lines` engine's fuel with headroom; the runways follow the rule
in docs/manifests.md: the largest stress case's runway lets an engine needing
RUNWAY_REFERENCE_FACTOR × the reference's fuel finish on every stress case, and each
smaller case gets a longer one, so the multiplier shrinks as the inputs grow.

Everything it writes is a function of the smoke files, the stress generator and the two
engines' fuel, so a rebuild of an unchanged case rewrites nothing (files whose bytes would
not change are left alone). `--check` builds into a temporary folder and lists the files
that differ from the committed case.
"""

from __future__ import annotations

import argparse
import math
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.lattice.census import write_case_census
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES

# The smoke tests in the order a reader learns the rules.
SMOKE_ORDER = (
    "straight_belt",
    "turn",
    "compression_behind_blocked_exit",
    "chained_movement",
    "side_load_priority",
    "opposite_belt_refused",
    "ring_rotation",
    "jammed_ring",
    "source_period_and_full_buffer",
    "sink_counting",
    "assembler_capacity",
    "assembler_priority",
    "crafting_timing",
    "grid_edge",
    "assembler_refuses_unneeded_type",
)
CASE_VERSION = 4
HEADROOM = 1.5  # the ceiling over the slowest stress case of `lines`
RUNWAY_REFERENCE_FACTOR = 4.0  # a correct engine this many times slower than reference still gets a reading
RUNWAY_SLACK = 1.01  # for the calls around `lattice_run` (alloc, copying the input) the grader also meters
RUNWAY_STEP = 0.05  # each smaller stress case gets this much more of the largest's runway
WALL_CLOCK_S = 600  # the backstop behind fuel: room for the longest runway on a busy machine


@dataclass(frozen=True)
class Built:
    name: str
    kind: str
    behaviour: str
    input_file: str
    expected_file: str
    lines_fuel: int
    reference_fuel: int
    size: int


def _pack(checksums: list[int]) -> bytes:
    return struct.pack(f"<{len(checksums)}Q", *checksums)


def _behaviour(text: str) -> str:
    first = text.splitlines()[0]
    if not first.startswith("#"):
        raise ValueError("a smoke scenario starts with a '#' line saying what it isolates")
    return first.lstrip("# ").strip()


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` unless the file already holds exactly it (so a rebuild touches nothing)."""
    if path.is_file() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


def build(case_dir: Path) -> Path:
    samples = case_dir / "submissions"
    reference = WasmEngine(samples / "reference" / "engine.wasm")
    lines = WasmEngine(samples / "lines" / "engine.wasm")
    expected_dir = case_dir / "expected"
    stress_dir = case_dir / "stress"
    expected_dir.mkdir(exist_ok=True)
    stress_dir.mkdir(exist_ok=True)
    built: list[Built] = []
    rank = {name: i for i, name in enumerate(SMOKE_ORDER)}
    smoke = sorted((case_dir / "smoke").glob("*.lat"), key=lambda p: (rank.get(p.stem, len(rank)), p.stem))
    for path in smoke:
        text = path.read_text()
        data = text.encode()
        checksums = reference.run(data)
        if checksums != simulate(parse_scenario(data, source=str(path))):
            raise RuntimeError(f"{path.name}: the wasm and Python references disagree")
        write_if_changed(expected_dir / f"{path.stem}.u64", _pack(checksums))
        built.append(
            Built(
                path.stem,
                "smoke",
                _behaviour(text),
                f"smoke/{path.name}",
                f"expected/{path.stem}.u64",
                0,
                0,
                len(data),
            )
        )
        print(f"smoke  {path.stem:<36} {len(checksums):>4} snapshots")
    for stress in stress_scenarios():
        text = stress.text()
        data = text.encode()
        scenario = parse_scenario(data, source=stress.name)
        write_if_changed(stress_dir / f"{stress.name}.lat", data)
        checksums = reference.run(data)
        if lines.run(data) != checksums:
            raise RuntimeError(f"{stress.name}: lines and reference disagree")
        write_if_changed(expected_dir / f"{stress.name}.u64", _pack(checksums))
        lf, rf = lines.fuel_of(data), reference.fuel_of(data)
        built.append(
            Built(
                stress.name,
                "stress",
                "",
                f"stress/{stress.name}.lat",
                f"expected/{stress.name}.u64",
                lf,
                rf,
                scenario.width * scenario.height,
            )
        )
        print(f"stress {stress.name:<14} lines {lf:>14,}  reference {rf:>16,}  ×{rf / lf:6.1f}")
    manifest = case_dir / "case.toml"
    write_if_changed(manifest, manifest_text(built).encode())
    write_census(case_dir)
    return manifest


def write_census(case_dir: Path) -> Path:
    """The census of every scenario of the case, shipped beside it for the Factory tab."""
    case = load_case(case_dir / "case.toml")
    scenarios = {entry.name: entry.input_bytes() for entry in case.cases}
    return write_case_census(case_dir, scenarios, progress=lambda name: print(f"census {name}"))


def _round_up(value: float) -> int:
    """Up to two significant figures, so the ceiling reads as a round number."""
    scale = 10 ** max(0, int(math.log10(value)) - 1)
    return int(math.ceil(value / scale) * scale)


def runways_for(reference_fuel: list[int], ceiling: int) -> list[float]:
    """The runway of each stress case (smallest first), by the rule in docs/manifests.md:
    the largest gets R = ceil(4 × the most fuel reference needs on any stress case × slack
    / ceiling), each step down in size RUNWAY_STEP × R more, rounded up."""
    need = RUNWAY_REFERENCE_FACTOR * max(reference_fuel) * RUNWAY_SLACK / ceiling
    largest = max(1, math.ceil(need))
    count = len(reference_fuel)
    return [float(math.ceil(largest * (1 + RUNWAY_STEP * (count - 1 - i)))) for i in range(count)]


def manifest_text(built: list[Built]) -> str:
    """case.toml for the built scenarios: the ceiling and runways follow from their fuel."""
    stress_built = [b for b in built if b.kind == "stress"]
    ceiling = _round_up(max(b.lines_fuel for b in stress_built) * HEADROOM)
    runways = runways_for([b.reference_fuel for b in stress_built], ceiling)
    print(f"ceiling {ceiling:,} fuel; runways {', '.join(f'{r:g}' for r in runways)}")
    return _manifest(built, ceiling, runways)


def _manifest(built: list[Built], ceiling: int, runways: list[float]) -> str:
    out = [
        "# The bundled Lattice case. Rebuild with: python -m lattice_desktop.lattice.case_builder",
        "[meta]",
        'name = "lattice"',
        f"version = {CASE_VERSION}",
        'variant = "standard"',
        'family = "lattice-v1"',
        'description = "A deterministic factory: every snapshot checksum must match the reference."',
        "",
        "[contract]",
        'abi = "bytes"',
        'entry = "lattice_run"',
        'output = "u64-list"',
        'records = "lattice_records"',
        "",
        "[sandbox]",
        f"fuel_limit = {ceiling:_}",
        "memory_limit_mib = 1024",
        "build_timeout_s = 300",
        f"wall_clock_s = {WALL_CLOCK_S}",
        "",
    ]
    stress_index = 0
    for b in built:
        out += ["[[case]]", f'name = "{b.name}"', f'kind = "{b.kind}"']
        if b.kind == "smoke":
            out.append(f'behaviour = "{b.behaviour}"')
        out += [f'input_file = "{b.input_file}"', f'expected_file = "{b.expected_file}"']
        if b.kind == "stress":
            out.append(f"fuel_runway = {runways[stress_index]:g}")
            out.append(f"size = {b.size}")
            out.append(f"# lines: {b.lines_fuel:,} fuel; reference: {b.reference_fuel:,} fuel")
            stress_index += 1
        out.append("")
    return "\n".join(out)


def check(case_dir: Path) -> list[str]:
    """Build a copy of the case (its smoke files and samples) in a temporary folder and
    return the files of the committed case that differ from what the builder produces."""
    built_files = ("case.toml", "census.json", "expected", "stress")
    with tempfile.TemporaryDirectory(prefix="lattice-case-") as tmp:
        copy = Path(tmp) / case_dir.name
        shutil.copytree(case_dir, copy, ignore=shutil.ignore_patterns(*built_files))
        build(copy)
        produced = {p.relative_to(copy) for p in copy.rglob("*") if p.is_file()}
        committed = {p.relative_to(case_dir) for p in case_dir.rglob("*") if p.is_file()}
        return sorted(
            str(rel)
            for rel in produced | committed
            if rel not in produced
            or rel not in committed
            or (copy / rel).read_bytes() != (case_dir / rel).read_bytes()
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case-dir", type=Path, default=CASES / "lattice")
    parser.add_argument(
        "--census-only",
        action="store_true",
        help="only recount the census of the case's scenarios (census.json)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="build into a temporary folder and list the committed files that differ (exit 1 if any)",
    )
    args = parser.parse_args()
    if args.check:
        differ = check(args.case_dir)
        print(
            "\n".join(f"differs: {name}" for name in differ)
            or "the committed case is what the builder produces"
        )
        sys.exit(1 if differ else 0)
    print(write_census(args.case_dir) if args.census_only else build(args.case_dir))


if __name__ == "__main__":
    main()
