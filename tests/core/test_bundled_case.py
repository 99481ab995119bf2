"""The bundled Lattice case: every sample gets its expected verdict, the way Kattis
checks its accepted and wrong-answer folders, and the case matches its builder."""

from __future__ import annotations

import contextlib
import io
import shutil
import struct

import pytest

from lattice_desktop.casekit.check import check_sample
from lattice_desktop.cli import case_cmd
from lattice_desktop.cli.main import main
from lattice_desktop.grading.grader import grade
from lattice_desktop.grading.report import GradeReport
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.resources import demo_case
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer

SMOKE_RULES = {
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
}
# Since version 6, nine rules have a second smoke test (the same behaviour, another layout).
SECOND_TESTS = {
    "chained_movement_with_gaps": "chained_movement",
    "side_load_priority_all_sides": "side_load_priority",
    "sink_counting_many_sinks": "sink_counting",
    "assembler_capacity_several_assemblers": "assembler_capacity",
    "crafting_timing_in_a_row": "crafting_timing",
    "grid_edge_corners": "grid_edge",
    "straight_belt_into_a_queue": "straight_belt",
    "assembler_priority_west_last": "assembler_priority",
    "assembler_refuses_unneeded_type_two_inputs": "assembler_refuses_unneeded_type",
}


def test_case_shape():
    case = load_case(demo_case())
    assert case.version == 6
    assert {c.name for c in case.smoke} == SMOKE_RULES | set(SECOND_TESTS)
    behaviour = {c.name: c.behaviour for c in case.smoke}
    assert all(behaviour[second] == behaviour[rule] for second, rule in SECOND_TESTS.items())
    assert all(c.behaviour for c in case.smoke)
    stress = case.stress
    assert len(stress) >= 5
    sizes = [c.size for c in stress]
    assert sizes == sorted(sizes) and sizes[-1] >= 512 * 512
    runways = [c.fuel_runway for c in stress]
    assert runways == sorted(runways, reverse=True) and len(set(runways)) == len(runways)


def test_the_two_largest_stress_cases_hold_over_100k_belts_for_over_255_ticks():
    # An engine whose belt table wraps past 65,536 entries, or whose line counts its items
    # in a byte (scale_bug), must fail the largest cases: they are that big and run that long.
    case = load_case(demo_case())
    for entry in case.stress[-2:]:
        scenario = parse_scenario(entry.input_bytes())
        assert sum(scenario.grid.count(c) for c in b"^>v<") > 100_000, entry.name
        assert scenario.ticks > 255, entry.name


def test_stress_scenarios_are_the_generators():
    case = load_case(demo_case())
    for spec in stress_scenarios():
        assert case.entry(spec.name).input_bytes().decode() == spec.text()


@pytest.fixture(scope="module")
def checked() -> tuple[int, str, dict[str, GradeReport]]:
    """`case check lattice` run once: its exit status, what it printed, and the report of
    each sample it graded (the whole case graded once for the tests that read the reports)."""
    reports: dict[str, GradeReport] = {}

    def kept(*args, **kwargs):
        result = check_sample(*args, **kwargs)
        if result.report is not None:
            reports[result.folder.name] = result.report
        return result

    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(case_cmd, "check_sample", kept)
        status = main(["case", "check", "lattice"])
    return status, printed.getvalue(), reports


@pytest.mark.slow
def test_case_check_confirms_every_sample(checked):
    status, out, reports = checked
    assert status == 0
    assert "all samples got their expected verdict" in out
    assert out.count("ok  ") == 5 == len(reports)


@pytest.mark.slow
def test_each_wrong_sample_fails_nearly_every_stress_case_on_its_own():
    # With the smoke gate removed (`case check --no-smoke-gate`), a wrong rule must show at
    # scale: each wrong sample gives a wrong answer on at least 5 of the 6 stress cases.
    case = load_case(demo_case())
    stuck = grade(case, load_submission(case.samples_dir / "stuck_rings"), smoke_gate=False)
    assert [r.name for r in stuck.failed_smoke] == ["ring_rotation"]
    stress = [r for r in stuck.results if not r.is_smoke]
    assert sum(r.outcome is Outcome.WRONG_ANSWER for r in stress) >= 5
    buggy = WasmEngine(case.samples_dir / "buggy" / "engine.wasm")  # as slow as reference: unmetered
    wrong = []
    for entry in case.stress:
        got = buggy.run(entry.input_bytes())
        if struct.pack(f"<{len(got)}Q", *got) != entry.expected_bytes():
            wrong.append(entry.name)
    assert len(wrong) >= 5


@pytest.mark.slow
def test_buggy_fails_exactly_its_rule_and_reference_lands_on_the_runway(checked):
    case = load_case(demo_case())
    reports = checked[2]  # graded as `grade` grades them, by `case check`
    buggy = reports["buggy"]
    failed = [r.name for r in buggy.results if r.is_smoke and r.outcome is not Outcome.PASS]
    assert failed == ["side_load_priority", "side_load_priority_all_sides"]  # its rule's two tests
    m = next(r for r in buggy.results if r.name == "side_load_priority").mismatch
    assert m.unit == "snapshot" and m.tick == (m.index + 1) * 3  # the scenario snapshots every 3 ticks
    assert all(r.outcome is Outcome.SKIPPED for r in buggy.results if not r.is_smoke)

    reference = reports["reference"]
    assert reference.verdict is Verdict.OVER_CEILING
    over = [r for r in reference.results if r.outcome is Outcome.OVER_CEILING]
    assert over and over[-1].name == case.stress[-1].name  # the larger cases, on the runway
    assert all(r.fuel > case.sandbox.fuel_limit for r in over)
    lines = reports["lines"]
    assert lines.verdict is Verdict.CORRECT
    assert max(r.fuel for r in lines.results if not r.is_smoke) <= case.sandbox.fuel_limit
    biggest = case.stress[-1].name
    ratio = next(r.fuel for r in reference.results if r.name == biggest) / next(
        r.fuel for r in lines.results if r.name == biggest
    )
    assert ratio >= 20
    expected = case.entry(biggest).expected_bytes()
    assert next(r.checksums for r in lines.results if r.name == biggest) == expected
    assert len(expected) // 8 == len(struct.unpack(f"<{len(expected) // 8}Q", expected))


def test_older_runs_stay_readable_and_are_never_ranked_with_version_6(tmp_path):
    # The field key holds the case version: a v1 to v5 run, even a faster one, never ranks
    # with v6, and each older version keeps its own leaderboard.
    writer = Writer(open_database(tmp_path / "runs.db"))
    v3 = load_case(demo_case())
    older = {}
    for version in (1, 2, 3, 4, 5):
        old = tmp_path / f"lattice-v{version}"
        shutil.copytree(v3.path.parent, old)
        manifest = old / "case.toml"
        manifest.write_text(manifest.read_text().replace("version = 6", f"version = {version}"))
        fast = old / "submissions" / "lines"
        toml = fast / "submission.toml"
        toml.write_text(toml.read_text().replace('model = "sample-lines"', f'model = "old-fast-v{version}"'))
        case = load_case(manifest)
        assert case.version == version
        older[version] = (case, grade_and_store(case, load_submission(fast), writer=writer).run_id)
    new_run = grade_and_store(v3, load_submission(v3.samples_dir / "lines"), writer=writer).run_id
    writer.close()
    assert standing(new_run).of == 1 and all(standing(run).of == 1 for _, run in older.values())
    board = leaderboard("lattice")
    assert board.version == 6 and [e.model for e in board.entries] == ["sample-lines"]
    for version, (case, run) in older.items():
        assert [e.model for e in leaderboard("lattice", version=version).entries] == [f"old-fast-v{version}"]
        stored = load_run(run)
        assert stored.summary.case_label == f"lattice {version}/standard"
        assert len(stored.results) == len(case.cases) and all(
            r.outcome is Outcome.PASS for r in stored.results
        )
