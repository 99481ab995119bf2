"""The committed case is what `case_builder` produces. The quick checks rebuild every
deterministic part (stress files, smoke answers, the manifest from its recorded fuel, the
`lines` fuel); the slow one runs the whole builder into a temporary folder."""

from __future__ import annotations

import re
import struct
import tomllib

import pytest

from lattice_desktop.lattice import case_builder
from lattice_desktop.lattice.case_builder import Built, _behaviour, manifest_text
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

CASE = load_case(demo_case())
FUEL_NOTE = re.compile(r"^# lines: ([\d,]+) fuel; reference: ([\d,]+) fuel$", re.M)


def recorded_fuel() -> list[tuple[int, int]]:
    """(lines, reference) fuel of each stress case, as the manifest's comments record it."""
    text = CASE.path.read_text()
    return [(int(a.replace(",", "")), int(b.replace(",", ""))) for a, b in FUEL_NOTE.findall(text)]


def test_the_manifest_is_what_the_builder_writes_for_the_recorded_fuel():
    fuel = iter(recorded_fuel())
    built = []
    for entry in CASE.cases:
        lines, reference = next(fuel) if not entry.is_smoke else (0, 0)
        size = len(entry.input_bytes()) if entry.is_smoke else entry.size
        behaviour = _behaviour(entry.input_bytes().decode()) if entry.is_smoke else ""
        built.append(
            Built(
                entry.name,
                entry.kind,
                behaviour,
                entry.input_path.relative_to(CASE.path.parent).as_posix(),
                entry.expected_path.relative_to(CASE.path.parent).as_posix(),
                lines,
                reference,
                size,
            )
        )
    assert CASE.path.read_text() == manifest_text(built)
    assert [e.name for e in CASE.smoke] == list(case_builder.SMOKE_ORDER)


def test_the_stress_files_and_every_answer_are_the_builders():
    for spec in stress_scenarios():
        assert CASE.entry(spec.name).input_bytes() == spec.text().encode(), spec.name
    for entry in CASE.smoke:
        checksums = simulate(parse_scenario(entry.input_bytes()))
        assert entry.expected_bytes() == struct.pack(f"<{len(checksums)}Q", *checksums), entry.name


def test_the_recorded_lines_fuel_and_the_stress_answers_match_the_committed_engine():
    lines = WasmEngine(CASE.samples_dir / "lines" / "engine.wasm")
    for entry, (lines_fuel, _) in zip(CASE.stress, recorded_fuel(), strict=True):
        data = entry.input_bytes()
        checksums = lines.run(data)
        assert entry.expected_bytes() == struct.pack(f"<{len(checksums)}Q", *checksums), entry.name
        assert lines.fuel_of(data) == lines_fuel, entry.name


@pytest.mark.slow
def test_a_rebuild_of_the_committed_case_changes_nothing():
    # the whole builder, reference fuel and census included (minutes)
    assert case_builder.check(CASE.path.parent) == []


def test_published_versions_name_the_bundle_at_its_content():
    # every version published so far, oldest first, and the bundle is the last of them
    published = tomllib.loads((CASE.path.parent / "published.toml").read_text())["published"]
    assert [p["version"] for p in published] == list(range(1, case_builder.CASE_VERSION + 1))
    assert len({p["content"] for p in published}) == len(published)
    last = published[-1]
    assert (last["version"], last["variant"], last["content"]) == (
        CASE.version,
        CASE.variant,
        CASE.manifest_hash,
    )
