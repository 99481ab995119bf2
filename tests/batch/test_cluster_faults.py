"""Faults on real clusters: a worker process killed mid-batch (scheduler and workers started
as separate processes with the `dask` command), and Ctrl+C on the command line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.database import open_database
from lattice_desktop.store.schema import CaseResultRow, Run
from tests.batch.fields import echo_case, slow_field
from tests.hostile.processes import descendants

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SPINS = 400_000_000  # about a second of wasm per job on an idle core


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def dask_cluster(tmp_path):
    """`dask scheduler` and two `dask worker` processes on loopback; yields (address, workers)."""
    dask = shutil.which("dask", path=str(BIN))
    assert dask, "dask.distributed is a test dependency"
    file = tmp_path / "scheduler.json"
    local = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]
    started = [
        subprocess.Popen(
            [dask, "scheduler", "--port", "0", "--scheduler-file", str(file), *local],
            env=environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        wait_for(file.exists, 60, "the scheduler")
        address = json.loads(wait_for(lambda: file.read_text().strip(), 10, "the scheduler file"))["address"]
        started.extend(
            subprocess.Popen(
                [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-nanny", *local],
                env=environment(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(2)
        )
        yield address, started[1:]
    finally:
        for process in reversed(started):
            process.terminate()
        for process in started:
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.mark.slow
def test_a_worker_killed_mid_batch_has_its_job_rerun_and_every_run_stored_once(
    tmp_path, dask_cluster, db_url
):
    from distributed import Client

    address, workers = dask_cluster
    case_path = echo_case(tmp_path / "case", fuel_limit=10**10, sandbox="wall_clock_s = 60")
    field = slow_field(tmp_path / "field", 6, spins=SPINS)
    with Client(address, timeout="30s") as watcher:
        watcher.wait_for_workers(2, timeout=60)
        pids = watcher.run(os.getpid)
        batch = subprocess.Popen(
            [
                str(BIN / "lattice-desktop"),
                "grade-batch",
                str(field),
                "--case",
                str(case_path),
                "--scheduler",
                address,
                "--db",
                db_url,
                "--json",
            ],
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Kill a worker while it runs a job, once the batch is well under way.
        busy = wait_for(
            lambda: [
                w
                for w, tasks in watcher.processing().items()
                if any(str(t).startswith("run_jobs") for t in tasks)
            ],
            90,
            "a busy worker",
        )
        victim = pids[busy[0]]
        os.kill(victim, signal.SIGKILL)
        out, err = batch.communicate(timeout=180)
    assert batch.returncode == 0, err
    assert any(w.pid == victim and w.wait(10) == -signal.SIGKILL for w in workers)
    data = json.loads(out)
    assert len(data["runs"]) == 6 and all(r["verdict"] == "correct" for r in data["runs"])
    case = load_case(case_path)
    single = grade(case, load_submission(field / "slow-00"))
    run = next(r for r in data["runs"] if r["submission"]["model"] == "slow-00")
    assert [r["fuel"] for r in run["results"]] == [r.fuel for r in single.results]
    open_database(db_url)
    assert Run.select().count() == 6 and Run.select().where(Run.verdict == Verdict.CORRECT.value).count() == 6
    assert sorted(r.model for r in Run.select()) == [f"slow-{i:02d}" for i in range(6)]
    assert CaseResultRow.select().count() == 12


@pytest.mark.slow
def test_ctrl_c_cancels_the_cluster_and_stores_no_half_run(tmp_path):
    case_path = echo_case(tmp_path / "case", fuel_limit=10**10, sandbox="wall_clock_s = 60")
    field = slow_field(tmp_path / "field", 8, spins=SPINS)
    db = tmp_path / "cancel.db"
    batch = subprocess.Popen(
        [str(BIN / "lattice-desktop"), "grade-batch", str(field), "--case", str(case_path), "--db", str(db)],
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    # Wait for the first stored run (one line per run: stderr is not a terminal).
    first = wait_for(batch.stderr.readline, 120, "a finished run")
    assert " · run " in first
    helpers = descendants(batch.pid)
    assert helpers, "the local cluster runs worker processes"
    os.killpg(batch.pid, signal.SIGINT)  # what Ctrl+C in a terminal does
    _out, err = batch.communicate(timeout=120)  # a hang, not a speed bound: how far it got is checked below
    assert batch.returncode == 130, err
    assert "interrupted" in err
    wait_for(
        lambda: (
            not [
                p
                for p in helpers
                if Path(f"/proc/{p}").exists() and "zombie" not in Path(f"/proc/{p}/status").read_text()
            ]
        ),
        20,
        "the workers to end",
    )
    open_database(db)
    runs = list(Run.select())
    assert 1 <= len(runs) < 8
    assert all(r.verdict == Verdict.CORRECT.value for r in runs)  # whole runs only, none left running
    assert CaseResultRow.select().count() == 2 * len(runs)
