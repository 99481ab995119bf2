"""The committed case is what `case_builder` produces, through the case build's own pieces
(casebuild: the rule, the manifest-figures writer, the answers writer, the stage). The quick
checks rebuild every deterministic part: the stress files, the manifest's figures and notes
from the fuel it records, the answers of the smoke tests and the two smallest stress cases,
the `lines` fuel, and the whole builder with `--check` (its stress runs and census taken from
the committed case); the slow ones, one stress case each, check those runs and that census
at full size."""

from __future__ import annotations

import re
import shutil
import struct
import tomllib

import pytest

from lattice_desktop.casebuild.answers import record_answer, write_placeholders
from lattice_desktop.lattice import case_builder
from lattice_desktop.lattice import census as census_module
from lattice_desktop.lattice.case_builder import Measured, answer, manifest_text
from lattice_desktop.lattice.census import census, stored_census
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

CASE = load_case(demo_case())
FUEL_NOTE = re.compile(r"^# lines: ([\d,]+) fuel; reference: ([\d,]+) fuel$", re.M)


def recorded_fuel() -> list[tuple[int, int]]:
    """(lines, reference) fuel of each stress case, as the manifest's notes record it."""
    text = CASE.path.read_text()
    return [(int(a.replace(",", "")), int(b.replace(",", ""))) for a, b in FUEL_NOTE.findall(text)]


def test_the_figures_and_notes_are_the_rule_written_by_the_kits_writer():
    # The manifest with its figures and notes wiped, filled in again from the recorded fuel.
    committed = CASE.path.read_bytes()
    text = committed.decode()
    blank = re.sub(r"^fuel_limit = .*$", "fuel_limit = 1", text, flags=re.M)
    blank = re.sub(r"^fuel_runway = .*$", "fuel_runway = 1", blank, flags=re.M)
    blank = re.sub(r"^# lines: .*\n", "", blank, flags=re.M)
    assert "lines:" not in blank and "2_900_000_000" not in blank
    measured = [
        Measured(e.name, e.size, lines, reference)
        for e, (lines, reference) in zip(CASE.stress, recorded_fuel(), strict=True)
    ]
    assert manifest_text(blank, measured, say=lambda _: None).encode() == committed


def test_the_stress_files_are_the_generators():
    assert [e.name for e in CASE.stress] == [s.name for s in stress_scenarios()]
    for spec in stress_scenarios():
        assert CASE.entry(spec.name).input_bytes() == spec.text().encode(), spec.name


def test_the_answers_writer_writes_the_committed_answers(tmp_path):
    # The builder's own path (the wasm reference, confirmed by a second engine) on a copy of
    # the case whose answers are placeholders: every smoke test and the two smallest stress cases.
    folder = tmp_path / "lattice"
    shutil.copytree(CASE.path.parent, folder, ignore=shutil.ignore_patterns("expected", "census.json"))
    write_placeholders(folder / "case.toml")
    copy = load_case(folder / "case.toml")
    reference = WasmEngine(CASE.samples_dir / "reference" / "engine.wasm")
    lines = WasmEngine(CASE.samples_dir / "lines" / "engine.wasm")
    chosen = [*copy.smoke, copy.entry("stress-64"), copy.entry("stress-128")]
    for entry in chosen:
        record_answer(copy, entry, answer(entry, reference, lines))
        assert entry.expected_bytes() == CASE.entry(entry.name).expected_bytes(), entry.name
    assert copy.entry("stress-512").expected_bytes() == b""  # untouched: only what was answered


def test_the_recorded_lines_fuel_and_the_stress_answers_match_the_committed_engine():
    lines = WasmEngine(CASE.samples_dir / "lines" / "engine.wasm")
    for entry, (lines_fuel, _) in zip(CASE.stress, recorded_fuel(), strict=True):
        checksums, fuel = lines.measure(entry.input_bytes())  # one run: its answer and its fuel
        assert entry.expected_bytes() == struct.pack(f"<{len(checksums)}Q", *checksums), entry.name
        assert fuel == lines_fuel, entry.name


def test_the_walkthroughs_runway_rule_is_the_shared_one():
    # docs/guide.md's walk-through applies the rule through these names.
    ceiling = case_builder._round_up(max(lines for lines, _ in recorded_fuel()) * case_builder.HEADROOM)
    assert ceiling == CASE.sandbox.fuel_limit
    runways = case_builder.runways_for([reference for _, reference in recorded_fuel()], ceiling)
    assert runways == [e.fuel_runway for e in CASE.stress]


def _census_seconds(entry) -> int:
    """About how long the check of a stress case below takes on a quiet machine (both
    engines' runs and the census go as cells × ticks: 2 s for stress-64, 20 s for stress-512),
    for the suite's order."""
    return max(1, round(entry.size * int(re.search(rb"^ticks (\d+)", entry.input_bytes(), re.M)[1]) / 4e6))


@pytest.mark.parametrize(
    "name", [pytest.param(e.name, marks=pytest.mark.slow(seconds=_census_seconds(e))) for e in CASE.stress]
)
def test_a_rebuild_gives_each_stress_case_its_committed_answer_fuel_and_census(name):
    """The expensive part of a rebuild at full size, one stress case a test (so that the
    workers share them): both engines' run, as the builder measures it (which fails unless
    lines and the reference agree), and the census. On the largest case `lines` needs at
    least 20 times less fuel than the reference."""
    entry = CASE.entry(name)
    reference = WasmEngine(CASE.samples_dir / "reference" / "engine.wasm")
    lines = WasmEngine(CASE.samples_dir / "lines" / "engine.wasm")
    expected, measured = case_builder.measured_answer(entry, reference, lines)
    assert expected == entry.expected_bytes()
    assert measured is not None
    assert (measured.lines, measured.reference) == recorded_fuel()[CASE.stress.index(entry)]
    if name == max(CASE.stress, key=lambda e: e.size).name:
        assert measured.reference >= 20 * measured.lines
    data = entry.input_bytes()
    assert census(parse_scenario(data, source=name)) == stored_census(data, case_dir=CASE.path.parent)


def test_a_rebuild_of_the_committed_case_changes_nothing(monkeypatch):
    """The whole builder on a stage with `--check`: the stress files, every smoke test's
    answer and census, the manifest's figures, the census file. A stress case's runs and
    census are the committed ones here, each checked at full size by the test above."""
    committed = {e.name: e for e in CASE.stress}
    real_answer, real_census = case_builder.measured_answer, census_module.census

    def stress_from_the_committed_case(entry, reference, lines):
        if entry.is_smoke:
            return real_answer(entry, reference, lines)
        lines_fuel, reference_fuel = recorded_fuel()[CASE.stress.index(committed[entry.name])]
        done = Measured(entry.name, entry.size, lines_fuel, reference_fuel)
        return committed[entry.name].expected_bytes(), done

    def key(scenario):
        return scenario.width, scenario.height, scenario.ticks, scenario.grid

    stress_census = {}
    for entry in CASE.stress:
        data = entry.input_bytes()
        stress_census[key(parse_scenario(data, source=entry.name))] = stored_census(
            data, case_dir=CASE.path.parent
        )

    def census_of_smoke_only(scenario, **kwargs):
        return stress_census.get(key(scenario)) or real_census(scenario, **kwargs)

    monkeypatch.setattr(case_builder, "measured_answer", stress_from_the_committed_case)
    monkeypatch.setattr(census_module, "census", census_of_smoke_only)
    said: list[str] = []
    assert case_builder.build(CASE.path.parent, check=True, say=said.append) == ()
    assert sum(line.startswith("smoke ") for line in said) == len(CASE.smoke)
    assert sum(line.startswith("census ") for line in said) == len(CASE.cases)


def test_published_versions_name_the_bundle_at_its_content():
    # every version published so far, oldest first, and the bundle is the last of them
    published = tomllib.loads((CASE.path.parent / "published.toml").read_text())["published"]
    assert [p["version"] for p in published] == list(range(1, CASE.version + 1))
    assert len({p["content"] for p in published}) == len(published)
    last = published[-1]
    assert (last["version"], last["variant"], last["content"]) == (
        CASE.version,
        CASE.variant,
        CASE.manifest_hash,
    )
