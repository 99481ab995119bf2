"""Issue 33 item 4: a build's memory is bounded in total, not per process, and so is its
process count.

Before: only RLIMIT_DATA bounded each process. One process touched a 3 GiB shared
anonymous mapping (RLIMIT_DATA does not count MAP_SHARED) and was graded correct; four
processes held 5.7 GB together; the tmpfs mounts held memory of their own. Here the
total is set to 256 MiB and each attack tries about 1 GiB (or 200 processes against 32):
each must end as a build failure naming the limit, with nothing left in the cgroup
hierarchy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_submission
from lattice_desktop.sandbox import cgroup
from lattice_desktop.sandbox.build import build_submission
from lattice_desktop.sandbox.isolation import isolation
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission
from tests.hostile.conftest import private_tmp  # noqa: F401  (a fixture)
from tests.hostile.test_builds import MAKE_MODULE, build_folder

pytestmark = pytest.mark.usefixtures("private_tmp")  # scratch folders of the test's own
jailed = pytest.mark.skipif(
    not isolation().available, reason=f"no build isolation here: {isolation().reason}"
)
MIB = 2**20
LIMIT_MIB = 256
PROCESSES = 32

# Each touches its pages a MiB at a time and says so only when all of them are in.
SHARED_MAPPING = (
    'python -c "import mmap; n = 2**30; m = mmap.mmap(-1, n, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS); '
    "chunk = b'x' * 2**20; [m.__setitem__(slice(i, i + 2**20), chunk) for i in range(0, n, 2**20)]; "
    "print('touched', 'all')\""
)
# Each of the four stays under the per-process limit (RLIMIT_DATA, at most the total).
HOLD_PART = (
    "python -c \"import time; b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096]); "
    "print('held', 'a part'); time.sleep(3)\""
)
FOUR_PROCESSES = " & ".join([HOLD_PART] * 4) + " & wait"
# Every tmpfs within its own size, together far past the total.
TMPFS = (
    "head -c 240M /dev/zero > /tmp/a && head -c 60M /dev/zero > /dev/shm/b && "
    "head -c 600M /dev/zero > c && echo 'wrote' 'all'"
)
MANY_PROCESSES = "i=0; while [ $i -lt 200 ]; do sleep 10 & i=$((i+1)); done; wait; echo 'ran' 'all'"
FORK_BOMB = "b() { b | b & }; b; sleep 5; echo 'bomb' 'done'"


@pytest.fixture
def bounded(monkeypatch):
    """The build's total memory and process count made small for the test."""
    monkeypatch.setenv(cgroup.MEMORY_VARIABLE, str(LIMIT_MIB))
    monkeypatch.setenv(cgroup.PROCESS_VARIABLE, str(PROCESSES))


def _cgroup_offered() -> bool:
    made = cgroup.probe()
    return made is None


needs_cgroup = pytest.mark.skipif(
    not _cgroup_offered(), reason=f"no cgroup can be made here: {cgroup.probe()}"
)


def _build(folder: Path, timeout: float = 60):
    return build_submission(load_submission(folder), allowed=True, timeout=timeout, max_module_bytes=2**20)


def _our_cgroups() -> list[str]:
    """Cgroup folders this process made, anywhere in the mounted hierarchies."""
    prefix = f"lattice-build-{os.getpid()}-"
    found = []
    for top, folders, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(top, f) for f in folders if f.startswith(prefix)]
    return found


@jailed
@needs_cgroup
@pytest.mark.usefixtures("bounded")
@pytest.mark.parametrize(
    ("attack", "done"),
    [(SHARED_MAPPING, "touched all"), (FOUR_PROCESSES, "held a part\n" * 4), (TMPFS, "wrote all")],
    ids=["shared-mapping", "four-processes", "tmpfs"],
)
def test_a_build_past_its_total_memory_is_a_failure_naming_the_limit(tmp_path, attack, done):
    result = _build(build_folder(tmp_path / "sub", attack, MAKE_MODULE))
    assert not result.ok, result.log
    assert f"more than {LIMIT_MIB} MiB of memory in total, the limit of its cgroup" in result.detail
    assert f"command `{attack}`" in result.detail
    assert done not in result.log
    assert _our_cgroups() == []


@jailed
@needs_cgroup
@pytest.mark.usefixtures("bounded")
@pytest.mark.parametrize(
    ("attack", "done"),
    [(MANY_PROCESSES, "ran all"), (FORK_BOMB, "bomb done")],
    ids=["200-sleeps", "fork-bomb"],
)
def test_a_build_past_its_process_count_is_a_failure_naming_the_limit(tmp_path, attack, done):
    result = _build(build_folder(tmp_path / "sub", attack, MAKE_MODULE))
    assert not result.ok, result.log
    assert f"more than {PROCESSES} processes at once, the limit of its cgroup" in result.detail
    assert done not in result.log
    assert _our_cgroups() == []


@jailed
@needs_cgroup
@pytest.mark.usefixtures("bounded")
def test_a_build_within_its_bounds_passes_and_says_what_bounds_it(tmp_path):
    result = _build(build_folder(tmp_path / "sub", MAKE_MODULE))
    assert result.ok, result.log
    assert f"{LIMIT_MIB} MiB of memory in total" in result.log and f"{PROCESSES} processes" in result.log
    assert _our_cgroups() == []


@jailed
@needs_cgroup
def test_the_build_is_in_its_cgroup_from_its_first_process(tmp_path):
    where = "cat /proc/1/cgroup; cat /proc/self/cgroup"
    result = _build(build_folder(tmp_path / "sub", where, MAKE_MODULE))
    assert result.ok, result.log
    ours = f"/lattice-build-{os.getpid()}-"
    for controller in ("memory", "pids"):
        lines = [
            line for line in result.log.splitlines() if f":{controller}:" in line or line.startswith("0::")
        ]
        placed = [line for line in lines if ours in line]
        assert len(placed) == 2, result.log  # the namespace's first process and the command's


STATVFS = (
    'python -c "import os; [print(p, os.statvfs(p).f_blocks * os.statvfs(p).f_frsize) '
    "for p in ('/tmp', '/dev/shm', '.')]\""
)


@jailed
def test_the_tmpfs_mounts_are_no_larger_than_the_total(tmp_path, monkeypatch):
    limit = 32
    monkeypatch.setenv(cgroup.MEMORY_VARIABLE, str(limit))
    result = _build(build_folder(tmp_path / "sub", STATVFS, MAKE_MODULE))
    assert result.ok, result.log
    sizes = dict(line.split() for line in result.log.splitlines() if line.startswith(("/tmp ", "/dev/shm ")))
    assert sizes.keys() == {"/tmp", "/dev/shm"}
    assert all(0 < int(size) <= limit * MIB for size in sizes.values()), sizes
    if os.geteuid() == 0:  # the scratch folder is a tmpfs only where the grader may mount one
        scratch = next(line.split()[1] for line in result.log.splitlines() if line.startswith(". "))
        assert int(scratch) <= limit * MIB


@jailed
def test_where_no_cgroup_can_be_made_the_log_says_what_bounds_the_build(tmp_path, monkeypatch):
    empty = tmp_path / "mountinfo"
    empty.write_text("")
    monkeypatch.setattr(cgroup, "MOUNTINFO", str(empty))
    result = _build(build_folder(tmp_path / "sub", MAKE_MODULE))
    assert result.ok, result.log
    assert "no cgroup for this build (no memory cgroup controller is mounted)" in result.log
    assert "shared mappings and many processes together are not" in result.log


@pytest.mark.parametrize(("variable", "value"), [("MEMORY_VARIABLE", "lots"), ("PROCESS_VARIABLE", "0")])
def test_a_bad_bound_in_the_environment_is_a_located_error(monkeypatch, variable, value):
    name = getattr(cgroup, variable)
    monkeypatch.setenv(name, value)
    with pytest.raises(UserError) as raised:
        cgroup.build_bounds()
    assert name in str(raised.value) and repr(value) in str(raised.value)


KILLED_MID_BUILD = """
import os, sys
from lattice_desktop.sandbox import cgroup
with cgroup.build_cgroup(cgroup.build_bounds()) as made:
    print(*made.folders, flush=True)
    os.kill(os.getpid(), 9)
"""


@needs_cgroup
def test_the_cgroups_of_a_grader_killed_mid_build_are_swept_by_the_next_build(tmp_path):
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_MID_BUILD], capture_output=True, text=True, check=False, timeout=60
    )
    left = [Path(folder) for folder in killed.stdout.split()]
    assert killed.returncode == -9 and left and all(folder.is_dir() for folder in left), killed
    with cgroup.build_cgroup(cgroup.build_bounds()) as made:
        assert not isinstance(made, str)
    assert not any(folder.exists() for folder in left)


@needs_cgroup
@pytest.mark.parametrize("command", ["grade", "profile"])
def test_the_cgroups_of_a_killed_grader_are_swept_by_any_command_that_uses_the_sandbox(tmp_path, command):
    """Issue 45 item 4: a grade or profile of a shipped module (no build, so no cgroup of
    its own) removes what a grader killed mid-build left, as its first use of the sandbox."""
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_MID_BUILD], capture_output=True, text=True, check=False, timeout=60
    )
    left = [Path(folder) for folder in killed.stdout.split()]
    assert killed.returncode == -9 and left and all(folder.is_dir() for folder in left), killed
    case = write_case(tmp_path / "case", ECHO_CASES)
    sub = write_submission(tmp_path / "sub", ECHO)
    argv = [sys.executable, "-m", "lattice_desktop", command, str(sub), "--case", str(case)]
    done = subprocess.run(
        [*argv, "--db", str(tmp_path / "runs.db")], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert [folder for folder in left if folder.exists()] == []
