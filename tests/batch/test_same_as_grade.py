"""A batch on a real local dask cluster gives, run by run and case by case, what `grade`
gives in one process: the verdict, the fuel, the output checksums and the reasons."""

from __future__ import annotations

from lattice_desktop.batch.backend import SerialBackend
from lattice_desktop.batch.dask_backend import DaskBackend
from lattice_desktop.batch.driver import grade_batch
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.grading.grader import grade
from lattice_desktop.grading.report import GradeReport
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome
from lattice_desktop.store.queries import load_run
from tests.batch.fields import echo_case, hostile_field, sample_field, small_lattice_case
from tests.core.wat_cases import ECHO, write_case, write_submission


def same_as_single(batch: GradeReport, single: GradeReport) -> None:
    assert batch.verdict is single.verdict, batch.submission.model
    assert batch.module_sha256 == single.module_sha256
    assert batch.stress_fuel == single.stress_fuel and batch.score == single.score
    assert len(batch.results) == len(single.results)
    for got, want in zip(batch.results, single.results, strict=True):
        assert (got.name, got.outcome, got.fuel, got.checksums, got.output_digest) == (
            want.name,
            want.outcome,
            want.fuel,
            want.checksums,
            want.output_digest,
        ), got.name
        assert (got.detail, got.trap_code, got.frames, got.mismatch, got.budget) == (
            want.detail,
            want.trap_code,
            want.frames,
            want.mismatch,
            want.budget,
        ), got.name


def test_the_samples_grade_alike_on_the_cluster_and_alone(tmp_path, client, writer):
    case = load_case(small_lattice_case(tmp_path / "case"))
    submissions, problems = find_submissions([sample_field(tmp_path / "field")])
    assert len(submissions) >= 3 and not problems
    result = grade_batch(case, submissions, backend=DaskBackend(client), writer=writer)
    by_model = {r.report.submission.model: r for r in result.runs}
    assert sorted(by_model) == sorted(s.model for s in submissions)
    assert {"sample-buggy", "sample-lines", "sample-reference"} <= set(by_model)
    for submission in submissions:
        finished = by_model[submission.model]
        single = grade(case, submission)
        same_as_single(finished.report, single)
        assert load_run(finished.run_id).results == finished.report.results  # stored as graded
    assert by_model["sample-buggy"].report.verdict.value == "incorrect"
    assert any(r.checksums for r in by_model["sample-lines"].report.results)


def test_hostile_modules_grade_alike_on_the_cluster_and_alone(tmp_path, client):
    case = load_case(echo_case(tmp_path / "case", fuel_limit=2_000_000))
    submissions, _ = find_submissions([hostile_field(tmp_path / "field")])
    result = grade_batch(case, submissions, backend=DaskBackend(client))
    reports = {r.report.submission.model: r.report for r in result.runs}
    assert len(reports) == len(submissions) == 8
    for submission in submissions:
        same_as_single(reports[submission.model], grade(case, submission))
    smoke = {model: report.results[0].outcome for model, report in reports.items()}
    assert smoke == {
        "hostile-passes": Outcome.PASS,
        "hostile-endless": Outcome.OUT_OF_FUEL,
        "hostile-traps": Outcome.TRAP,
        "hostile-wrong": Outcome.WRONG_ANSWER,
        "hostile-stack": Outcome.TRAP,
        "hostile-imports": Outcome.LINK_ERROR,
        "hostile-no-alloc": Outcome.MISSING_EXPORT,
        "hostile-garbage": Outcome.INVALID_MODULE,
    }
    skipped = [
        r for model, report in reports.items() if model != "hostile-passes" for r in report.results[1:]
    ]
    assert skipped and all(r.outcome is Outcome.SKIPPED for r in skipped)


def test_the_in_process_backend_runs_the_same_batch(tmp_path):
    case = load_case(echo_case(tmp_path / "case", fuel_limit=2_000_000))
    submissions, _ = find_submissions([hostile_field(tmp_path / "field")])
    result = grade_batch(case, submissions, backend=SerialBackend())
    for finished in result.runs:
        same_as_single(finished.report, grade(case, finished.report.submission))


def test_an_input_over_dask_large_graph_threshold_travels_once_without_a_warning(tmp_path, client):
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (12 * 2**20))
    cases = f'''
[[case]]
name = "big"
kind = "stress"
input_file = "{big}"
expected_file = "{big}"
'''
    case = load_case(write_case(tmp_path / "case", cases, fuel_limit=10**9))
    submission = load_submission(
        write_submission(
            tmp_path / "echo", ECHO.replace('(memory (export "memory") 1)', '(memory (export "memory") 256)')
        )
    )
    result = grade_batch(case, [submission], backend=DaskBackend(client))
    same_as_single(result.runs[0].report, grade(case, submission))
    assert result.runs[0].report.results[0].outcome is Outcome.PASS
