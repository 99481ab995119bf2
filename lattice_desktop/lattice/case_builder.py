"""Rebuild the bundled Lattice case: stress scenarios, expected answers, figures, census.

    python -m lattice_desktop.lattice.case_builder [--case-dir resources/cases/lattice] [--check]

The Lattice case is built as any case is (`casebuild`, which `lattice-desktop case build`
uses too): on a stage, so a build of an unchanged case changes nothing and `--check` lists
the files a build would change (exit 1 if any); with the same answers writer, calibration
rule and manifest-figures writer. case.toml is the source of the case's entries, as for any
case: the build writes only its ceiling, runways and fuel notes.

What is Lattice's own: the stress scenarios come from `stress.py`; each answer is the wasm
`reference` engine's checksums, confirmed by the Python reference on the smoke tests and by
`lines` on the stress cases; the ceiling is paced by `lines`, the runways read from
`reference`, both by the fuel of `lattice_run` alone (hence the rule's 1% slack for the calls
around it, which the grader meters too); each smoke test's behaviour is its file's first
line; and the census of every scenario ships beside the case.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.casebuild.answers import record_answer, u64_list, write_placeholders
from lattice_desktop.casebuild.calibrate import Rule, calibrate, round_up, runways
from lattice_desktop.casebuild.manifest_figures import Runway, with_figures
from lattice_desktop.casebuild.stage import on_stage
from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice.census import write_case_census
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import CaseEntry, CaseManifest, load_case
from lattice_desktop.resources import CASES

# The rule of casebuild/calibrate.py with Lattice's numbers (docs/manifests.md): the ceiling
# 1.5 × `lines`' most fuel; an engine 4 × slower than `reference` still gets a reading.
RULE = Rule(headroom=1.5, reading=4.0, step=0.05, slack=1.01)
FRESH = ("stress", "expected")  # made from scratch by every build, so a stale file shows
# The names docs/guide.md's walk-through (tests/core/test_guide_walkthrough.py) applies the rule by.
HEADROOM = RULE.headroom
_round_up = round_up


@dataclass(frozen=True)
class Measured:
    """A stress case's size and the fuel each engine's `lattice_run` burns on it."""

    name: str
    size: int
    lines: int
    reference: int


def build(case_dir: Path, *, check: bool = False, say: Callable[[str], None] = print) -> tuple[str, ...]:
    """Build the case in `case_dir`; return the files that differ from the build, which are
    written unless `check`."""
    _, changed = on_stage(case_dir, lambda stage: _build_stage(stage, say), check=check, fresh=FRESH)
    return changed


def _build_stage(stage: Path, say: Callable[[str], None]) -> None:
    (stage / "stress").mkdir(exist_ok=True)
    for spec in stress_scenarios():
        (stage / "stress" / f"{spec.name}.lat").write_bytes(spec.text().encode())
    write_placeholders(stage / "case.toml")
    case = load_case(stage / "case.toml")
    _check_declared(case, stage)
    reference = WasmEngine(stage / "submissions" / "reference" / "engine.wasm")
    lines = WasmEngine(stage / "submissions" / "lines" / "engine.wasm")
    measured = []
    for entry in case.cases:
        expected, m = measured_answer(entry, reference, lines)
        record_answer(case, entry, expected)
        if m is None:
            say(f"smoke  {entry.name:<36} {len(entry.expected_bytes()) // 8:>4} snapshots")
        else:
            measured.append(m)
            ratio = m.reference / m.lines
            say(f"stress {m.name:<14} lines {m.lines:>14,}  reference {m.reference:>16,}  ×{ratio:6.1f}")
    case.path.write_text(manifest_text(case.path.read_text(), measured, say=say))
    write_census(stage, say=say)


def answer(entry: CaseEntry, reference: WasmEngine, lines: WasmEngine) -> bytes:
    """The expected answer to `entry`: the wasm reference's checksums, confirmed by a second
    engine (the Python reference on a smoke test, `lines` on a stress case)."""
    return measured_answer(entry, reference, lines)[0]


def measured_answer(
    entry: CaseEntry, reference: WasmEngine, lines: WasmEngine
) -> tuple[bytes, Measured | None]:
    """`answer`, and on a stress case the fuel of both engines, taken from the same runs
    (each engine runs a stress case once: the reference's run is most of a build)."""
    data = entry.input_bytes()
    checksums, reference_fuel = reference.measure(data)
    scenario = parse_scenario(data, source=entry.name)
    if entry.is_smoke:
        if simulate(scenario) != checksums:
            raise UserError(f"{entry.name}: the wasm and Python references disagree", _at(entry))
        return u64_list(checksums), None
    confirmed, lines_fuel = lines.measure(data)
    if confirmed != checksums:
        raise UserError(f"{entry.name}: lines and the wasm reference disagree", _at(entry))
    if entry.size != scenario.width * scenario.height:
        raise UserError(f"{entry.name}: size is {scenario.width * scenario.height} cells, not {entry.size}")
    return u64_list(checksums), Measured(entry.name, entry.size, lines_fuel, reference_fuel)


def manifest_text(text: str, measured: Sequence[Measured], *, say: Callable[[str], None] = print) -> str:
    """case.toml's `text` with the figures RULE gives for the stress cases' measured fuel,
    each stress case noted with both engines' fuel on the line after its last key."""
    figures = calibrate(
        [m.size for m in measured], [m.lines for m in measured], [m.reference for m in measured], RULE
    )
    say(f"ceiling {figures.ceiling:,} fuel; runways {', '.join(str(r) for r in figures.runways)}")
    notes = {
        m.name: Runway(r, f"lines: {m.lines:,} fuel; reference: {m.reference:,} fuel")
        for m, r in zip(measured, figures.runways, strict=True)
    }
    return with_figures(text, figures.ceiling, notes, notes_below=True)


def runways_for(reference_fuel: list[int], ceiling: int) -> list[float]:
    """The runway of each stress case (smallest first) under `ceiling`, by RULE."""
    return [float(r) for r in runways(range(len(reference_fuel)), reference_fuel, ceiling, RULE)]


def _check_declared(case: CaseManifest, stage: Path) -> None:
    """Every smoke file and generated stress scenario is a case of the manifest, and each
    smoke test's behaviour is its file's first line."""
    names = {entry.name for entry in case.cases}
    made = [p.stem for p in sorted((stage / "smoke").glob("*.lat"))] + [s.name for s in stress_scenarios()]
    missing = [name for name in made if name not in names]
    if missing:
        raise UserError(f"no [[case]] for {', '.join(missing)}", Location(str(case.path)))
    for entry in case.smoke:
        first = entry.input_bytes().decode().splitlines()[0]
        if not first.startswith("#") or first.lstrip("# ").strip() != entry.behaviour:
            raise UserError(
                f"{entry.name}: a smoke scenario starts with a '#' line saying what it isolates, "
                "and that line is its behaviour in case.toml",
                _at(entry),
            )


def _at(entry: CaseEntry) -> Location:
    return Location(str(entry.input_path) if entry.input_path else None)


def write_census(case_dir: Path, *, say: Callable[[str], None] = print) -> Path:
    """The census of every scenario of the case, shipped beside it for the Factory tab."""
    case = load_case(case_dir / "case.toml")
    scenarios = {entry.name: entry.input_bytes() for entry in case.cases}
    return write_case_census(case_dir, scenarios, progress=lambda name: say(f"census {name}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--case-dir", type=Path, default=CASES / "lattice")
    parser.add_argument(
        "--census-only",
        action="store_true",
        help="only recount the census of the case's scenarios (census.json)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing: list the files a build would change (exit 1 if any)",
    )
    args = parser.parse_args()
    if args.census_only:
        print(write_census(args.case_dir))
        return
    try:
        changed = build(args.case_dir, check=args.check)
    except UserError as exc:
        sys.exit(f"error: {exc}")
    if args.check:
        print("\n".join(f"differs: {name}" for name in changed) or "the case is what its sources build")
        sys.exit(1 if changed else 0)
    print("\n".join(f"wrote {name}" for name in changed) or "nothing changed")


if __name__ == "__main__":
    main()
