"""The bundled inversions case, made with the kit alone: it is what its sources build, every
sample and slip gets its verdict, the Fuel tab's growth exponent tells the O(n log n) sample
from the O(n²) one, its modules carry DWARF lines without a change to their code, and the
app's stores, board, profile (per source line) and demo take it like Lattice."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lattice_desktop.casebuild.calibrate import calibrate
from lattice_desktop.casekit.compile import compile_submission
from lattice_desktop.casekit.kit_file import read_kit
from lattice_desktop.cli.main import main
from lattice_desktop.grading.fuel_growth import fit_slope
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.manifest.case_identity import identify_case
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.profile.source_lines import has_line_table
from lattice_desktop.profile.wasm_sections import CUSTOM, sections
from lattice_desktop.resources import CASES, demo_case
from lattice_desktop.services.grade_jobs import demo_jobs, unfinished_demo_jobs
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.services.profiling import profile_target, run_target
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.writer import Writer

FOLDER = CASES / "inversions"
DEBUG_FLAGS = "-g -fdebug-compilation-dir=."


@pytest.fixture(scope="module")
def case():
    return load_case(FOLDER)


@pytest.fixture(scope="module")
def reports(case):
    return {
        name: grade(case, load_submission(case.samples_dir / name)) for name in ("merge_sort", "quadratic")
    }


def stress_points(report) -> tuple[list[int], list[int]]:
    stress = [r for r in report.results if not r.is_smoke]
    return [r.size for r in stress], [r.fuel or 0 for r in stress]


def test_the_bundled_case_is_what_its_sources_build(capsys):
    assert main(["case", "build", str(FOLDER), "--allow-case-code", "--check"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "the case is what its sources build"


def test_case_check_finds_nothing_weak(capsys):
    assert main(["case", "check", "inversions"]) == 0
    out = capsys.readouterr().out
    kit = read_kit(FOLDER / "kit.toml")
    assert out.count("  ok   ") == len(list(load_case(FOLDER).samples_dir.iterdir())) + len(kit.slips)
    assert out.splitlines()[-1].startswith("the case is sound")


def _code(wasm: bytes) -> bytes:
    """Every section but the custom ones: what runs and what fuel is charged for."""
    return b"".join(wasm[s.start : s.end] for s in sections(wasm) if s.id != CUSTOM)


def test_every_shipped_module_is_its_g0_build_plus_debug_sections(tmp_path):
    folders = sorted(p.parent for p in FOLDER.glob("*/*/submission.toml"))
    assert len(folders) == 3 + len(read_kit(FOLDER / "kit.toml").slips)
    for folder in folders:
        copy = Path(shutil.copytree(folder, tmp_path / folder.parent.name / folder.name))
        manifest = copy / "submission.toml"
        assert DEBUG_FLAGS in manifest.read_text(), folder
        manifest.write_text(manifest.read_text().replace(DEBUG_FLAGS, "-g0"))
        stripped = compile_submission(copy).read_bytes()
        shipped = load_submission(folder).module_path.read_bytes()
        assert has_line_table(shipped) and not has_line_table(stripped), folder
        assert _code(shipped) == _code(stripped), folder


def test_the_growth_exponent_tells_the_two_classes_apart(reports, case):
    fast, slow = (fit_slope(*stress_points(reports[n])) for n in ("merge_sort", "quadratic"))
    assert fast is not None and slow is not None
    assert 0.9 < fast[0] < 1.3  # n log n
    assert 1.8 < slow[0] < 2.2  # n²
    sizes, fuel = stress_points(reports["merge_sort"])
    assert reports["merge_sort"].verdict is Verdict.CORRECT
    assert calibrate(sizes, fuel, fuel, read_kit(FOLDER / "kit.toml").rule).ceiling == case.sandbox.fuel_limit


def test_the_naive_engine_goes_over_the_ceiling_on_the_large_inputs_only(reports, case):
    report = reports["quadratic"]
    assert report.verdict is Verdict.OVER_CEILING
    stress = [r for r in report.results if not r.is_smoke]
    over = [r.outcome is Outcome.OVER_CEILING for r in stress]
    assert over[-1] and not over[0] and over == sorted(over)  # a suffix: the larger sizes
    biggest = {n: stress_points(reports[n])[1][-1] for n in reports}
    assert biggest["quadratic"] >= 50 * biggest["merge_sort"]
    assert biggest["quadratic"] <= case.budget(case.stress[-1])  # it got a reading


def test_the_wrong_sample_fails_only_inputs_beyond_its_buffer(case):
    source = (case.samples_dir / "fixed_buffer" / "solution.c").read_text()
    capacity = int(re.search(r"#define CAPACITY (\d+)", source).group(1))
    report = grade(case, load_submission(case.samples_dir / "fixed_buffer"))
    assert report.verdict is Verdict.INCORRECT
    wrong = {r.name for r in report.results if r.outcome is Outcome.WRONG_ANSWER}
    assert wrong and wrong == {e.name for e in case.stress if e.size > capacity}


def test_it_is_registered_ranked_and_profiled(tmp_path, case):
    writer = Writer(open_database(tmp_path / "runs.db"))
    try:
        runs = {
            name: grade_and_store(case, load_submission(case.samples_dir / name), writer=writer).run_id
            for name in ("merge_sort", "quadratic")
        }
        assert identify_case(case).registered
        board = leaderboard("inversions")
        assert [e.model for e in board.entries] == ["sample-merge-sort"]
        target = run_target(runs["merge_sort"], case.stress[1].name)
        profile = profile_target(target, writer=writer)
    finally:
        writer.close()
    assert profile.total == target.graded_fuel
    top = max(profile.functions, key=lambda f: f.self_fuel)
    assert "sort" in top.name  # the merge sort, named from the module's name section
    assert profile.line_table and {s.file for s in profile.lines} == {"solution.c"}
    per_function = Counter()
    for s in profile.lines:
        per_function[s.function] += s.fuel
    assert all(per_function[f.index] == f.self_fuel for f in profile.functions)


def test_the_first_start_demo_grades_it_too(tmp_path):
    open_database(tmp_path / "demo.db")
    models = [job.submission.model for job in demo_jobs(demo_case())]
    samples = [load_submission(p).model for p in sorted((FOLDER / "submissions").iterdir())]
    assert set(samples) <= set(models)
    assert set(samples) <= {job.submission.model for job in unfinished_demo_jobs(demo_case())}
    assert [job.submission.model for job in demo_jobs(FOLDER / "case.toml")][: len(samples)] == samples
