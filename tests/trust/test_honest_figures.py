"""Issue 9 item 7: honest, bounded figures.

Today a case stopped by the wall-clock backstop stores a fuel figure of 2 after burning
tens of billions, and a wrong answer's whole output is kept: a module returning 16 MiB per
case adds 218 MB to the database per run and needs 624 MB of memory."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome
from tests.core.wat_cases import ECHO_CASES, module_with_run_body, u64s, write_case, write_submission


def test_a_case_stopped_by_the_wall_clock_stores_no_false_fuel_figure(tmp_path):
    wat = module_with_run_body("(loop $forever (br $forever)) (i64.const 0)")
    case = load_case(write_case(tmp_path / "case", ECHO_CASES, fuel_limit=2**60, sandbox="wall_clock_s = 1"))
    result = grade(case, load_submission(write_submission(tmp_path / "sub", wat)), workers=1).results[0]
    assert result.outcome is Outcome.TIMEOUT
    assert result.fuel is None  # wasmtime does not say what an interrupted call burned
    assert "fuel not measured" in result.detail


# Return 16 MiB of u64 "checksums" for every case (the expected answer is two of them).
HUGE_ANSWER = module_with_run_body("(i64.const 0x1000000)", memory="257")
CASE_COUNT = 8


def _cases() -> str:
    expected = ", ".join(str(v) for v in (1, 2))
    return "".join(
        f"""
[[case]]
name = "c{i}"
kind = "smoke"
behaviour = "two snapshots"
input = "snapshot 5"
expected = [{expected}]
"""
        for i in range(CASE_COUNT)
    )


GRADE_AND_MEASURE = r"""
import sys
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.writer import Writer
writer = Writer(open_database(sys.argv[1]))
report = grade_and_store(load_case(sys.argv[2]), load_submission(sys.argv[3]), writer=writer,
                         workers=2).report
writer.close()
# VmHWM, not ru_maxrss: the latter keeps the parent's size at fork across exec.
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(peak // 1024, max(len(r.checksums or b"") for r in report.results))
"""


def test_a_wrong_answers_output_is_not_kept_beyond_what_results_and_diff_need(tmp_path):
    contract = 'abi = "bytes"\nentry = "run"\noutput = "u64-list"'
    case = write_case(
        tmp_path / "case",
        _cases(),
        contract=contract,
        fuel_limit=10**9,
        meta='name = "huge"\nversion = 1\nfamily = "lattice-v1"',
        sandbox="wall_clock_s = 20\nmax_output_mib = 64",
    )
    sub = write_submission(tmp_path / "sub", HUGE_ANSWER)
    db = tmp_path / "l.db"
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from lattice_desktop.store.database import open_database; open_database({str(db)!r})",
        ],
        check=True,
    )
    before = db.stat().st_size
    done = subprocess.run(
        [sys.executable, "-c", GRADE_AND_MEASURE, str(db), str(case), str(sub)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rss_mib, kept = (int(v) for v in done.stdout.split())
    grown = db.stat().st_size - before
    stored = (
        sqlite3.connect(db).execute("select max(length(checksums)), count(*) from case_result").fetchone()
    )
    print(f"database grew {grown / 2**20:.2f} MiB, peak RSS {rss_mib} MiB, kept {kept} bytes per case")
    assert stored[1] == CASE_COUNT
    assert stored[0] <= len(u64s(1, 2)) + 8 and kept <= len(u64s(1, 2)) + 8
    assert grown < 2**20
    assert rss_mib < 200
