"""The batch's time left weighs stress jobs by their size and waits for the first one: the
smoke tests finish first and cost next to nothing, so counting jobs promised the end as
soon as they were done (measured under load on the bundled field: "00:00 left" with 69 s
to go). Its elapsed time counts from when the batch began for the user, a cluster's start
included (it left out 8.7 s)."""

from __future__ import annotations

import time

from lattice_desktop.batch.backend import SerialBackend
from lattice_desktop.batch.driver import BatchProgress, grade_batch
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.manifest import load_case
from lattice_desktop.work import Work
from tests.core.wat_cases import ECHO, write_case, write_submission

CASES = """
[[case]]
name = "tiny"
kind = "smoke"
behaviour = "echoes"
input = "a"
expected = "a"

[[case]]
name = "small"
kind = "stress"
input = "0123456789"
expected = "0123456789"
size = 10

[[case]]
name = "large"
kind = "stress"
input = "{large}"
expected = "{large}"
size = 1000
""".replace("{large}", "x" * 1000)


def test_no_estimate_until_a_stress_job_is_done_then_by_size():
    smoke_done = BatchProgress(13, 19, 0, 1, 2.0, cost_done=0, cost_total=262144 + 4096, costing=1.0)
    assert smoke_done.remaining is None  # by jobs it said 0.9 s
    first_stress = BatchProgress(14, 19, 0, 1, 12.0, cost_done=4096, cost_total=262144 + 4096, costing=10.0)
    assert first_stress.remaining == 10.0 / 4096 * 262144
    no_stress = BatchProgress(3, 10, 0, 2, 61.0)  # a case without stress cases: by jobs
    assert no_stress.remaining == 61.0 / 3 * 7


def test_the_driver_reports_stress_cost_as_it_goes(tmp_path):
    case = load_case(write_case(tmp_path / "case", CASES))
    for model in ("m1", "m2"):
        write_submission(tmp_path / "field" / model, ECHO, model=model)
    submissions, _ = find_submissions([tmp_path / "field"])
    steps: list[BatchProgress] = []
    began = time.monotonic() - 5.0  # a cluster took 5 s to start before the batch was called

    def listen(step) -> None:
        if isinstance(step.item, BatchProgress):
            steps.append(step.item)

    grade_batch(case, submissions, backend=SerialBackend(), work=Work(listen), started=began)
    assert all(p.elapsed >= 5.0 for p in steps)
    assert steps[-1].cost_done == steps[-1].cost_total == 2 * 1010
    before_stress = [p for p in steps if p.cost_done == 0]
    assert before_stress and all(p.remaining is None for p in before_stress)
    assert any(p.jobs_done for p in before_stress)  # smoke jobs were done, still no estimate
    assert [p.cost_done for p in steps] == sorted(p.cost_done for p in steps)
