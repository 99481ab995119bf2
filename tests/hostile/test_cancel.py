"""Cancel from another thread in every phase of grade_and_store, and unexpected errors:
a cancelled run ends `cancelled` with no results, no stray processes, no scratch folders;
a bug of ours reaches the caller with its traceback and is never blamed on the submission."""

from __future__ import annotations

import threading
import traceback

import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.grading import grader
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store import runs as store_runs
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission
from tests.hostile.processes import scratch_folders, wait_for_no_descendants
from tests.hostile.test_builds import build_folder
from tests.hostile.test_modules import many_functions

SPIN = SLOW_ECHO.replace("(i32.const 100)", "(i32.const 100000000)")
SANDBOX = "wall_clock_s = 600\nbuild_timeout_s = 600\ncompile_timeout_s = 600"


@pytest.fixture
def writer(tmp_path):
    w = Writer(open_database(tmp_path / "runs.db"))
    yield w
    w.close()


def cancel_in_phase(case, submission, writer, phase: str, *, allow_build=False, after: float = 0.4):
    """Run grade_and_store; cancel from another thread `after` s into `phase`. That it
    ends Cancelled (not by the build, compile or wall-clock limit, nor by finishing) is
    what shows the cancel landed; how fast is benchmarks/stop_latency.py's figure."""
    timers: list[threading.Timer] = []

    def progress(step):
        if step.item.phase == phase and not timers:
            timers.append(threading.Timer(after, work.cancel))
            timers[0].start()

    work = Work(progress)
    with pytest.raises(Cancelled):
        grade_and_store(
            case, submission, writer=writer, allow_build=allow_build, allow_unisolated=True, work=work
        )


def assert_cancelled_cleanly(private_tmp):
    [run] = list_runs()
    assert run.verdict is Verdict.CANCELLED
    assert load_run(run.id).results == []
    assert wait_for_no_descendants() == []
    assert scratch_folders(private_tmp) == []


def test_cancel_during_the_build(tmp_path, writer, private_tmp):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, sandbox=SANDBOX))
    sub = load_submission(build_folder(tmp_path / "sub", "sleep 600"))
    cancel_in_phase(case, sub, writer, "build", allow_build=True)
    assert_cancelled_cleanly(private_tmp)


def test_cancel_during_the_run(tmp_path, writer, private_tmp):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10**15, sandbox=SANDBOX))
    sub = load_submission(write_submission(tmp_path / "sub", SPIN))
    cancel_in_phase(case, sub, writer, "compile", after=1.0)  # lands in smoke
    assert_cancelled_cleanly(private_tmp)


def test_cancel_during_the_stress_cases(tmp_path, writer, private_tmp):
    # Smoke input "hello" spins briefly; the long stress inputs spin for ever.
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10**15, sandbox=SANDBOX))
    spin_on_long = SLOW_ECHO.replace("(i32.const 100)", "(i32.const 100000000)").replace(
        "(local.set $i (i32.mul (local.get 1)", "(local.set $i (i32.mul (i32.sub (local.get 1) (i32.const 5))"
    )
    sub = load_submission(write_submission(tmp_path / "sub", spin_on_long))
    cancel_in_phase(case, sub, writer, "smoke")
    assert_cancelled_cleanly(private_tmp)


def test_cancel_during_the_compile(tmp_path, writer, private_tmp):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, sandbox=SANDBOX.replace("600", "3")))
    folder = write_submission(tmp_path / "sub", ECHO)
    (folder / "module.wasm").write_bytes(many_functions(6000, 100))
    cancel_in_phase(case, load_submission(folder), writer, "compile", after=0.3)
    assert_cancelled_cleanly(private_tmp)


def test_cancel_while_storing_is_too_late_and_stores_the_whole_run(tmp_path, writer, monkeypatch):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    work = Work()
    finish = store_runs.finish_run

    def cancelled_mid_write(run_id, report):
        work.cancel()
        finish(run_id, report)

    monkeypatch.setattr(store_runs, "finish_run", cancelled_mid_write)
    stored = grade_and_store(
        case, load_submission(write_submission(tmp_path / "sub", ECHO)), writer=writer, work=work
    )
    [run] = list_runs()
    assert run.verdict is Verdict.CORRECT
    assert load_run(run.id).results == stored.report.results  # all of it, never half


def test_a_bug_in_one_case_is_an_internal_error_with_its_traceback(tmp_path, writer, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug of ours")

    monkeypatch.setattr(grader, "execute", broken)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    stored = grade_and_store(case, load_submission(write_submission(tmp_path / "sub", ECHO)), writer=writer)
    smoke = stored.report.results[0]
    assert smoke.outcome is Outcome.INTERNAL_ERROR and stored.report.verdict is Verdict.INTERNAL_ERROR
    assert "Traceback" in smoke.detail and "ZeroDivisionError: a bug of ours" in smoke.detail
    assert load_run(stored.run_id).results[0].detail == smoke.detail  # stored for the user to see


def test_a_bug_outside_the_cases_reaches_the_caller_with_its_traceback(tmp_path, writer, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("compile cache went missing")

    monkeypatch.setattr(grader, "compile_module", broken)
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    with pytest.raises(KeyError) as caught:
        grade_and_store(case, load_submission(write_submission(tmp_path / "sub", ECHO)), writer=writer)
    frames = "".join(traceback.format_tb(caught.value.__traceback__))
    assert "in broken" in frames  # the real origin, not a re-wrapped message
    [run] = list_runs()
    assert run.verdict is Verdict.INTERNAL_ERROR and load_run(run.id).results == []
