"""Issue 9 item 2: the build jail fails closed, and what a build can reach inside it.

Today a hard `ulimit -u 200` makes the probe fail (misnamed "namespaces refused"), the
build then runs as the grader's user, the failed probe is cached for the session, SysV
shared memory and message queues outlive a build, a build reaches host Unix sockets and
reads what CAP_DAC_READ_SEARCH lets it, and scratch folders of a killed grader stay."""

from __future__ import annotations

import ctypes
import dataclasses
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_submission
from lattice_desktop.sandbox import isolation as isolation_module
from lattice_desktop.sandbox.build import build_submission
from lattice_desktop.sandbox.isolation import SWITCH, isolation
from lattice_desktop.sandbox.scratch import sweep_stale_scratch
from tests.core.wat_cases import ECHO_CASES, write_case
from tests.hostile.test_builds import MAKE_MODULE, build_folder

jailed = pytest.mark.skipif(
    not isolation().available, reason=f"no build isolation here: {isolation().reason}"
)
CLI = [sys.executable, "-m", "lattice_desktop.cli.main"]


def _build(folder: Path, **options):
    return build_submission(
        load_submission(folder), allowed=True, timeout=60, max_module_bytes=2**20, **options
    )


def _one_command(folder: Path, **options):
    """Run every command even when one fails: `;` joins them into one."""
    submission = load_submission(folder)
    joined = dataclasses.replace(submission, commands=("; ".join(submission.commands),))
    return build_submission(joined, allowed=True, timeout=60, max_module_bytes=2**20, **options)


PROBE = (
    "from lattice_desktop.sandbox.isolation import isolation; j = isolation(); print(j.available, j.reason)"
)


@jailed
def test_the_probe_works_under_a_hard_process_limit_below_the_jails():
    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NPROC, (200, 200))

    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lower,
    )
    assert done.stdout.startswith("True"), done.stdout + done.stderr


def test_a_failed_probe_is_not_cached_for_the_session(monkeypatch):
    monkeypatch.delenv(SWITCH, raising=False)
    monkeypatch.setattr(isolation_module._probed, "working", None)  # a fresh session
    real_which = isolation_module.shutil.which
    monkeypatch.setattr(isolation_module.shutil, "which", lambda name: None)
    assert not isolation().available and "unshare" in isolation().reason
    monkeypatch.setattr(isolation_module.shutil, "which", real_which)
    assert isolation().available is isolation_module._probe_once().available  # probed again


def test_no_build_command_runs_unisolated_unless_explicitly_allowed(tmp_path, monkeypatch):
    monkeypatch.setenv(SWITCH, "off")
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = build_folder(tmp_path / "sub", f"touch {outside}/ran", MAKE_MODULE)
    with pytest.raises(UserError, match=f"turned off by {SWITCH}.*--allow-unisolated-build"):
        _build(folder)
    assert list(outside.iterdir()) == []
    result = _build(folder, allow_unisolated=True)
    assert result.ok and result.isolation is not None and not result.isolation.available
    assert "warning: build isolation is unavailable" in result.log
    assert (outside / "ran").exists()


def _grade_cli(folder: Path, case: Path, *flags: str, env: dict | None = None):
    return subprocess.run(
        [*CLI, "grade", str(folder), "--case", str(case), "--build", "--no-store", *flags],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_grade_says_every_time_whether_the_build_ran_isolated(tmp_path):
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = build_folder(tmp_path / "sub", MAKE_MODULE)
    refused = _grade_cli(folder, case, env={SWITCH: "off"})
    assert refused.returncode == 2 and "--allow-unisolated-build" in refused.stderr
    assert "Traceback" not in refused.stderr
    unisolated = _grade_cli(folder, case, "--allow-unisolated-build", env={SWITCH: "off"})
    assert unisolated.returncode == 0, unisolated.stderr
    assert f"build ran NOT isolated (turned off by {SWITCH})" in unisolated.stderr
    if isolation().available:
        done = _grade_cli(folder, case)
        assert done.returncode == 0, done.stderr
        assert "build ran isolated" in done.stderr


_libc = ctypes.CDLL(None, use_errno=True)
_librt = ctypes.CDLL("librt.so.1", use_errno=True)
IPC_CREAT, IPC_RMID = 0o1000, 0
SHM_KEY = 0x4C415454  # "LATT"
MAKE_IPC = f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
shm = libc.shmget({SHM_KEY}, 64 * 1024 * 1024, 0o1666)
queue = rt.mq_open(b"/lattice-escape", os.O_CREAT | os.O_RDWR, 0o666, None)
print("shm", shm, "queue", queue)
"""


def _host_ipc() -> tuple[int, int]:
    shm = _libc.shmget(SHM_KEY, 0, 0)
    queue = _librt.mq_open(b"/lattice-escape", os.O_RDONLY)
    return shm, queue


def _clean_host_ipc() -> None:
    shm, queue = _host_ipc()
    if shm >= 0:
        _libc.shmctl(shm, IPC_RMID, None)
    if queue >= 0:
        _librt.mq_close(queue)
    _librt.mq_unlink(b"/lattice-escape")


@jailed
def test_ipc_objects_a_build_makes_are_gone_after_it(tmp_path):
    _clean_host_ipc()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "ipc.py").write_text(MAKE_IPC)
    try:
        result = _one_command(build_folder(tmp_path / "sub", "python ipc.py", MAKE_MODULE))
        assert result.ok, result.log
        assert "shm -1" not in result.log, result.log  # it made them, inside
        assert _host_ipc() == (-1, -1)
    finally:
        _clean_host_ipc()


def _listen(path: Path, got: list[bytes]) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    os.chmod(path, 0o777)
    server.listen(4)
    server.settimeout(0.2)

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            got.append(conn.recv(4096))
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    return server


@jailed
def test_no_host_unix_socket_is_reachable(tmp_path):
    places = [
        Path(tempfile.mkdtemp(dir="/tmp")),
        Path(tempfile.mkdtemp(dir="/run")),
        Path(tempfile.mkdtemp(dir="/var/tmp")),
    ]
    got: list[bytes] = []
    servers = []
    try:
        for place in places:
            place.chmod(0o777)
            servers.append(_listen(place / "host.sock", got))
        send = "; ".join(
            f"python -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{p}/host.sock'); "
            f"s.sendall(open('/etc/hostname', 'rb').read())\""
            for p in places
        )
        result = _one_command(build_folder(tmp_path / "sub", send, MAKE_MODULE))
        time.sleep(0.5)
        assert result.ok, result.log
        assert got == [], got
    finally:
        for server in servers:
            server.close()
        for place in places:
            subprocess.run(["rm", "-rf", str(place)], check=False)


@jailed
def test_the_build_reads_neither_user_data_nor_expected_answers_nor_homes(tmp_path, monkeypatch):
    token = secrets.token_hex(8)
    shared = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        shared.chmod(0o755)
        data = shared / "data"
        data.mkdir()
        (data / "l.db").write_text(f"database {token}")
        monkeypatch.setenv("LATTICE_DESKTOP_DB", str(data / "l.db"))
        expected = shared / "case" / "expected.u64"
        expected.parent.mkdir()
        expected.write_text(f"expected {token}")
        home_secret = Path.home() / f".lattice-test-{token}"
        home_secret.write_text(f"home {token}")
        home_secret.chmod(0o644)
        try:
            result = _one_command(
                build_folder(
                    tmp_path / "sub",
                    f"cat {data}/l.db",
                    f"cat {expected}",
                    f"cat {home_secret}",
                    f"ls {data} {Path.home()} /home",
                    "grep CapEff /proc/self/status",
                    MAKE_MODULE,
                )
            )
        finally:
            home_secret.unlink()
        assert result.ok, result.log  # the toolchain (python, wasmtime) stayed readable
        for secret in (f"database {token}", f"expected {token}", f"home {token}"):
            assert secret not in result.log
        assert f"cannot access '{data}'" in result.log  # not even listed
        assert "CapEff:\t0000000000000000" in result.log
    finally:
        subprocess.run(["rm", "-rf", str(shared)], check=False)


KILLED_GRADER = """
import sys, tempfile
tempfile.tempdir = sys.argv[1]
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.grading.grader import grade
grade(load_case(sys.argv[2]), load_submission(sys.argv[3]), allow_build=True, allow_unisolated=True)
"""


def test_scratch_folders_of_a_killed_grader_are_swept_at_the_next_start(tmp_path, monkeypatch):
    scratch_root = tmp_path / "scratch"
    scratch_root.mkdir()
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = build_folder(tmp_path / "sub", "sleep 60")
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_GRADER, str(scratch_root), str(case), str(folder)],
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not any(scratch_root.glob("lattice-build-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    left = list(scratch_root.glob("lattice-build-*"))
    assert left, "the killed grader left no scratch folder to sweep"
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))
    mine = Path(tempfile.mkdtemp(prefix=f"lattice-build-{os.getpid()}-"))  # a live grader's: kept
    swept = sweep_stale_scratch()
    assert sorted(swept) == sorted(left)
    assert list(scratch_root.iterdir()) == [mine]


@jailed
def test_a_toolchain_under_tmp_is_readable_and_read_only_in_the_jail(tmp_path, monkeypatch):
    """A checkout (and its venv) under /tmp: the private /tmp must not hide it, nor make it writable."""
    toolchain = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        toolchain.chmod(0o755)  # readable by the build's `nobody`, as a venv is
        (toolchain / "tool.txt").write_text("the toolchain\n")
        monkeypatch.setenv(isolation_module.TOOLCHAIN, str(toolchain))
        probe = (
            f"cat {toolchain}/tool.txt; echo changed > {toolchain}/tool.txt || echo refused; "
            f"touch {toolchain}/new || echo refused"
        )
        result = _one_command(build_folder(tmp_path / "sub", probe, MAKE_MODULE))
        assert result.ok, result.log
        lines = result.log.splitlines()
        assert "the toolchain" in lines and lines.count("refused") == 2, result.log
        assert (toolchain / "tool.txt").read_text() == "the toolchain\n"
        assert not (toolchain / "new").exists()
    finally:
        subprocess.run(["rm", "-rf", str(toolchain)], check=False)
