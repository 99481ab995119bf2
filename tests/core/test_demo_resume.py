"""Which demo samples a first-start demo cut short still has to grade, decided without Qt
from the real database: graded samples (hidden ones too) are done; cancelled, interrupted
or never-started ones are not; another case content starts over."""

from __future__ import annotations

import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.manifest import load_case
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.grade_jobs import demo_jobs, run_job, unfinished_demo_jobs
from lattice_desktop.store import runs
from lattice_desktop.store.database import open_database
from lattice_desktop.store.hidden_runs import hide_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work
from tests.core.wat_cases import (
    ECHO,
    ECHO_CASES,
    SLOW_ECHO,
    module_with_run_body,
    write_case,
    write_submission,
)


@pytest.fixture
def demo(tmp_path):
    """A case with three shipped samples, and a writer on a fresh database file."""
    case = write_case(tmp_path / "case", ECHO_CASES)
    for name, wat in (("a", ECHO), ("b", SLOW_ECHO), ("c", module_with_run_body("(i64.const 0)"))):
        write_submission(tmp_path / "case" / "submissions" / name, wat, model=f"sample-{name}")
    writer = Writer(open_database(tmp_path / "runs.db"))
    yield case, writer
    writer.close()


def _models(jobs) -> list[str]:
    return [j.submission.model for j in jobs]


def test_an_untouched_demo_has_every_sample_left(demo):
    case, _ = demo
    assert _models(unfinished_demo_jobs(case)) == ["sample-a", "sample-b", "sample-c"]


def test_a_demo_closed_mid_way_has_left_what_it_did_not_finish(demo):
    case, writer = demo
    first, second, third = demo_jobs(case)
    run_job(first, writer)  # graded: correct
    cancelled = Work()
    cancelled.cancel()
    with pytest.raises(Cancelled):
        run_job(second, writer, work=cancelled)  # the app closed while it graded
    assert _models(unfinished_demo_jobs(case)) == ["sample-b", "sample-c"]
    run_job(third, writer)  # incorrect is a finished verdict: graded
    assert _models(unfinished_demo_jobs(case)) == ["sample-b"]
    run_job(second, writer)
    assert unfinished_demo_jobs(case) == []


def test_a_run_left_running_or_interrupted_is_not_graded(demo):
    case, writer = demo
    job = demo_jobs(case)[0]
    run_id = writer.call(runs.begin_run, load_case(case), job.submission)  # the process died here
    assert _models(unfinished_demo_jobs(case))[0] == "sample-a"
    writer.call(runs.end_run_without_results, run_id, Verdict.INTERRUPTED)  # as the next start marks it
    assert _models(unfinished_demo_jobs(case))[0] == "sample-a"


def test_a_hidden_demo_run_counts_as_graded_but_another_case_content_does_not(demo):
    case, writer = demo
    stored = run_job(demo_jobs(case)[0], writer)
    writer.call(hide_runs, [stored.run_id])
    assert "sample-a" not in _models(unfinished_demo_jobs(case))
    case.write_text(case.read_text().replace("fuel_limit = 100000", "fuel_limit = 200000"))
    assert "sample-a" in _models(unfinished_demo_jobs(case))  # a new content: its own demo
