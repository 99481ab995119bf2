"""The bundled Lattice case: every sample gets its expected verdict, the way Kattis
checks its accepted and wrong-answer folders, and the case matches its builder."""

from __future__ import annotations

import struct

from lattice_desktop.cli.main import main
from lattice_desktop.grading.grader import grade
from lattice_desktop.lattice.generator import stress_scenarios
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.resources import demo_case

SMOKE_RULES = {
    "straight_belt", "turn", "compression_behind_blocked_exit", "side_load_priority",
    "opposite_belt_refused", "ring_rotation", "jammed_ring", "source_period_and_full_buffer",
    "sink_counting", "assembler_capacity", "assembler_priority", "crafting_timing", "grid_edge",
}


def test_case_shape():
    case = load_case(demo_case())
    assert {c.name for c in case.smoke} == SMOKE_RULES
    assert all(c.behaviour for c in case.smoke)
    stress = case.stress
    assert len(stress) >= 5
    sizes = [c.size for c in stress]
    assert sizes == sorted(sizes) and sizes[-1] >= 512 * 512
    runways = [c.fuel_runway for c in stress]
    assert runways == sorted(runways, reverse=True) and len(set(runways)) == len(runways)


def test_stress_scenarios_are_the_generators():
    case = load_case(demo_case())
    for spec in stress_scenarios():
        assert case.entry(spec.name).input_bytes().decode() == spec.text()


def test_case_check_confirms_every_sample(capsys):
    assert main(["case", "check", "lattice"]) == 0
    out = capsys.readouterr().out
    assert "all samples got their expected verdict" in out
    assert out.count("ok  ") == 4


def test_buggy_fails_exactly_its_rule_and_reference_lands_on_the_runway():
    case = load_case(demo_case())
    buggy = grade(case, load_submission(case.samples_dir / "buggy"))
    failed = [r.name for r in buggy.results if r.is_smoke and r.outcome is not Outcome.PASS]
    assert failed == ["side_load_priority"]
    m = next(r for r in buggy.results if r.name == "side_load_priority").mismatch
    assert m.unit == "snapshot" and m.tick == (m.index + 1) * 3  # the scenario snapshots every 3 ticks
    assert all(r.outcome is Outcome.SKIPPED for r in buggy.results if not r.is_smoke)

    reference = grade(case, load_submission(case.samples_dir / "reference"))
    assert reference.verdict is Verdict.OVER_CEILING
    over = [r for r in reference.results if r.outcome is Outcome.OVER_CEILING]
    assert over and over[-1].name == case.stress[-1].name  # the larger cases, on the runway
    assert all(r.fuel > case.sandbox.fuel_limit for r in over)
    lines = grade(case, load_submission(case.samples_dir / "lines"))
    assert lines.verdict is Verdict.CORRECT
    assert max(r.fuel for r in lines.results if not r.is_smoke) <= case.sandbox.fuel_limit
    biggest = case.stress[-1].name
    ratio = next(r.fuel for r in reference.results if r.name == biggest) / next(
        r.fuel for r in lines.results if r.name == biggest)
    assert ratio >= 20
    expected = case.entry(biggest).expected_bytes()
    assert next(r.checksums for r in lines.results if r.name == biggest) == expected
    assert len(expected) // 8 == len(struct.unpack(f"<{len(expected) // 8}Q", expected))
