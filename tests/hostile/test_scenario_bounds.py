"""Scenario files are bounded before they are read, and every scenario command is bounded in
time: a 3 GiB file is refused without reading it, an 89-byte scenario of a billion ticks stops
at `--timeout` with a clear error, and opening such a file can be cancelled at once."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.lattice.scenario import MAX_SCENARIO_BYTES
from lattice_desktop.lattice.scenario_file import read_scenario_file
from lattice_desktop.services.factory_opening import file_checksums, open_scenario_view
from lattice_desktop.work import Work

ROOT = Path(__file__).resolve().parents[2]
BILLION_TICKS = b"lattice 1\nsize 3 3\nticks 1000000000\nsnapshot 1000000\nsource 0 2 N 18 15\ngrid\n^..\n^..\nS..\n"  # 89 bytes


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lattice_desktop", *args],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )


@pytest.fixture
def huge(tmp_path) -> Path:
    """A 3 GiB scenario file that costs no disk (sparse): reading it would cost 3 GiB of memory."""
    path = tmp_path / "huge.lat"
    with path.open("wb") as f:
        f.write(b"lattice 1\n")
        f.truncate(3 * 2**30)
    return path


# Runs the command in argv as its only child, its output into the file argv[1], and prints
# that child's peak resident memory (KiB): RUSAGE_CHILDREN of this small, fresh process. The
# test's own process cannot measure it: Linux carries the peak of the process a child was
# forked from into the child's ru_maxrss across exec, and an xdist worker that ran a grade
# may have held a gigabyte (wait4 and /proc/PID/status after the exit would show that, or
# nothing).
MEASURED = """
import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    done = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""


def cli_with_peak(folder: Path, *args: str) -> tuple[int, str, int]:
    """Run the command line; its exit status, what it said, and its own peak memory (KiB)."""
    said = folder / "said.txt"
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(said), sys.executable, "-m", "lattice_desktop", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,  # a hang fails the test, it does not hold the run
        check=False,
    )
    assert done.stdout.strip().isdigit(), done.stderr
    return done.returncode, said.read_text(), int(done.stdout)


def test_the_peak_is_the_commands_own_not_the_test_processs(tmp_path):
    """The test's process holding 768 MiB (as an xdist worker may, after a grade) does not
    count in the peak of a command it starts."""
    held = bytearray(768 * 2**20)
    held[::4096] = b"\x01" * len(range(0, len(held), 4096))  # touched: resident, not just mapped
    status, said, peak_kib = cli_with_peak(tmp_path, "--version")
    del held
    assert status == 0 and said.strip(), said
    assert peak_kib < 256 * 1024, f"{peak_kib / 1024:.0f} MiB"


@pytest.mark.parametrize("command", ["stats", "expect", "check"])
def test_a_3_gib_scenario_is_refused_before_it_is_read(huge, tmp_path, command):
    status, said, peak_kib = cli_with_peak(tmp_path, "scenario", command, str(huge))
    assert status == (1 if command == "check" else 2), said  # check reports and goes on
    assert "too large for a scenario file" in said and "huge.lat" in said and "Traceback" not in said
    assert peak_kib < 1024 * 1024  # the child never held the file (3 GiB)


def test_reading_is_bounded_by_the_parser_limit(huge):
    assert huge.stat().st_size > MAX_SCENARIO_BYTES
    with pytest.raises(UserError, match="too large"):
        read_scenario_file(huge)


def test_stats_of_a_billion_ticks_stops_at_its_time_limit(tmp_path):
    path = tmp_path / "long.lat"
    path.write_bytes(BILLION_TICKS)
    done = cli("scenario", "stats", str(path), "--timeout", "1")
    assert done.returncode == 2, done.stderr
    assert "long.lat" in done.stderr and "did not finish within 1 s" in done.stderr
    assert "Traceback" not in done.stderr


def test_opening_a_billion_ticks_is_cancelled_at_once(tmp_path):
    path = tmp_path / "long.lat"
    path.write_bytes(BILLION_TICKS)
    work = Work()
    outcome: list[BaseException | None] = []

    def opening() -> None:
        try:
            opened = open_scenario_view(path, work=work)
            file_checksums(path, opened.playback, work=work)  # the reference's whole run
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    previous = threading.stack_size(16 * 2**20)  # wasm runs on the calling thread's stack
    try:
        thread = threading.Thread(target=opening)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join(2)  # running the reference on the scenario by now (or still compiling it)
    work.cancel()
    thread.join()  # uncancelled, the reference would run into its 120 s limit: an EngineError
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled), outcome
