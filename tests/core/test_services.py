"""The service layer and the Qt-free logic that used to live in ui/: grading jobs, the
stored run as text, harness imports, snapshot checksums and the fuel growth fit."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.grading.compare import Mismatch
from lattice_desktop.grading.fuel_growth import describe_slope, fit_slope
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.manifest import load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.grade_jobs import GradeJob, demo_jobs, run_job, sample_jobs
from lattice_desktop.services.harness_import import bundled_examples, import_traces
from lattice_desktop.services.run_report import detail_text, report_text
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import list_harness_runs
from lattice_desktop.store.pages import load_run_page
from lattice_desktop.store.queries import list_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Step, Work
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission


@pytest.fixture
def writer(tmp_path):
    w = Writer(open_database(tmp_path / "runs.db"))
    yield w
    w.close()


def test_slope_fit_and_words():
    sizes = [10, 100, 1000, 10000]
    assert fit_slope(sizes, [5 * s for s in sizes])[0] == pytest.approx(1.0)
    assert fit_slope(sizes, [s * s for s in sizes])[0] == pytest.approx(2.0)
    assert fit_slope([10], [3]) is None
    assert fit_slope([10, 10], [3, 4]) is None  # one distinct size: no line
    assert describe_slope(1.02) == "slope 1.02 ≈ O(n)"
    assert describe_slope(1.97) == "slope 1.97 ≈ O(n²)"


def test_snapshots_find_the_first_divergence_and_map_ticks_to_rows():
    expected = np.array([1, 2, 3, 4], "<u8").tobytes()
    got = np.array([1, 2, 9], "<u8").tobytes()
    snaps = Snapshots.from_bytes(100, expected, got + b"\x01\x02")  # a ragged tail is dropped
    assert len(snaps) == 4
    assert snaps.status().tolist() == [1, 1, 0, 0]
    assert snaps.first_divergence == 2
    assert (snaps.tick(2), snaps.row_of(300), snaps.row_of(250), snaps.row_of(0)) == (300, 2, None, None)
    unknown = Snapshots.from_bytes(100, expected, None)
    assert unknown.status().tolist() == [-1] * 4 and unknown.first_divergence is None
    # The first snapshot past a tick whose checksums differ (P's cap): rows 2 and 3 differ
    # (a missing checksum differs), so past 0 or 299 it is 300, past 300 it is 400.
    assert [snaps.next_differing(t) for t in (0, 299, 300, 400)] == [300, 300, 400, None]
    assert unknown.next_differing(0) is None


def test_a_snapshot_divergence_reads_at_a_glance():
    mismatch = Mismatch(11, 0x3F0A_0000_0000_E21C, 0x9B1C_0000_0000_0A44, tick=1200, unit="snapshot")
    result = CaseResult(
        name="stress-64",
        kind="stress",
        behaviour="",
        size=64,
        outcome=Outcome.WRONG_ANSWER,
        ceiling=1000,
        budget=1000,
        fuel=900,
        mismatch=mismatch,
    )
    assert detail_text(result) == "snapshot 12 · tick 1200 · expected 3f0a…e21c · got 9b1c…0a44"
    assert "3f0a00000000e21c" in detail_text(result, exact=True)


def test_a_job_grades_stores_and_copies_as_text(tmp_path, writer):
    case = write_case(tmp_path / "case", ECHO_CASES)
    sub = load_submission(write_submission(tmp_path / "echo", ECHO))
    stored = run_job(GradeJob(case, sub), writer)
    assert stored.report.verdict is Verdict.CORRECT
    page = load_run_page(stored.run_id)
    text = report_text(page)
    lines = text.splitlines()
    assert lines[0] == f"echo · echo 1/standard · model-a · run {stored.run_id}"
    assert lines[1].startswith("✓ correct · score ")
    assert "Smoke tests (correctness only)" in lines and "Stress cases (fuel)" in lines
    assert any(line.startswith("  hello · echoes a short input · ✓ pass · ") for line in lines)


def test_a_cancelled_job_is_kept_as_cancelled(tmp_path, writer):
    case = write_case(tmp_path / "case", ECHO_CASES)
    sub = load_submission(write_submission(tmp_path / "echo", ECHO))
    work = Work()
    work.cancel()
    with pytest.raises(Cancelled):
        run_job(GradeJob(case, sub), writer, work=work)
    assert [r.verdict for r in list_runs()] == [Verdict.CANCELLED]


def test_sample_jobs_take_only_samples_that_ship_a_module(tmp_path):
    case = write_case(
        tmp_path / "case", ECHO_CASES + "\n", meta='name = "echo"\nversion = 1\nsamples = "subs"'
    )
    write_submission(tmp_path / "case" / "subs" / "b-shipped", ECHO, model="m-b")
    write_submission(tmp_path / "case" / "subs" / "a-built", ECHO, build=True)
    (tmp_path / "case" / "subs" / "notes").mkdir()
    jobs = demo_jobs(case)
    assert [j.submission.model for j in jobs] == ["m-b"]
    assert jobs[0].allow_build is False and jobs[0].submission.commands == ()
    assert jobs[0].label == "b-shipped · m-b"
    assert sample_jobs(case, None) == [] and sample_jobs(case, tmp_path / "missing") == []


def test_importing_traces_stores_the_good_and_names_the_bad(tmp_path, writer):
    box, traces = bundled_examples()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "a trace"\n')
    steps: list[Step] = []
    outcome = import_traces(writer, box, [traces[0], bad, traces[1]], work=Work(steps.append))
    assert [(s.fraction, s.message) for s in steps] == [
        (0.0, f"importing {traces[0].name} (1 of 3)"),
        (1 / 3, "importing bad.jsonl (2 of 3)"),
        (2 / 3, f"importing {traces[1].name} (3 of 3)"),
        (1.0, "imported 2 of 3"),
    ]
    assert len(outcome.stored) == 2
    assert len(outcome.errors) == 1 and outcome.errors[0].startswith(str(bad))
    assert sorted(r.id for r in list_harness_runs()) == sorted(outcome.stored)


def test_a_bad_box_stores_nothing(tmp_path, writer):
    _, traces = bundled_examples()
    box = tmp_path / "bad.box.toml"
    shutil.copy(traces[0], box)  # not TOML at all
    outcome = import_traces(writer, box, traces[:2])
    assert outcome.stored == [] and len(outcome.errors) == 1 and str(box) in outcome.errors[0]
    assert list_harness_runs() == []


def test_a_cancelled_import_stops_between_traces_and_keeps_what_it_stored(writer):
    box, traces = bundled_examples()

    def cancel_after_the_first(step: Step) -> None:
        if step.fraction > 0:
            work.cancel()

    work = Work(cancel_after_the_first)
    with pytest.raises(Cancelled):
        import_traces(writer, box, traces[:3], work=work)
    assert len(list_harness_runs()) == 2  # the second was being stored when Cancel came
