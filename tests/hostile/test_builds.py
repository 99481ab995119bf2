"""Hostile build commands: they hang, flood, write outside their scratch folder, leave
processes behind, reach for the network. Each is stopped, capped or refused."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import time
from pathlib import Path

import pytest
import wasmtime

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox import build
from lattice_desktop.sandbox.build import LOG_LIMIT, build_submission
from lattice_desktop.sandbox.isolation import SWITCH, isolation
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case
from tests.hostile.processes import descendants, scratch_folders

jailed = pytest.mark.skipif(
    not isolation().available, reason=f"no build isolation here: {isolation().reason}"
)


def build_folder(folder: Path, *commands: str, module: str = "module.wasm") -> Path:
    """A submission whose [build] runs `commands` (and ships the WAT of ECHO)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "module.wat").write_text(ECHO)
    listed = ", ".join(json.dumps(c) for c in commands)
    (folder / "submission.toml").write_text(
        f'[submission]\nmodel = "m"\n\n[build]\ncommands = [{listed}]\nmodule = "{module}"\n'
    )
    return folder


MAKE_MODULE = (
    "python -c \"import wasmtime; open('module.wasm','wb')"
    ".write(wasmtime.wat2wasm(open('module.wat').read()))\""
)


def run_build(folder: Path, timeout: float = 30.0):
    """Build; where the jail is off (SWITCH), as if the user allowed an unisolated build."""
    return build_submission(
        load_submission(folder), allowed=True, timeout=timeout, max_module_bytes=2**20, allow_unisolated=True
    )


def processes_running(token: str) -> list[int]:
    """Processes whose command line holds `token`."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if token.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
            except OSError:
                pass
    return found


def test_a_hanging_build_is_stopped_at_its_time_limit(tmp_path, private_tmp):
    case = load_case(
        write_case(tmp_path / "case", ECHO_CASES, sandbox="build_timeout_s = 1\nwall_clock_s = 20")
    )
    folder = build_folder(tmp_path / "sub", "echo starting", "sleep 600")
    report = grade(case, load_submission(folder), allow_build=True, allow_unisolated=True)
    assert report.results[0].outcome is Outcome.BUILD_FAILURE
    assert "time limit" in report.results[0].detail
    assert "starting" in report.build.log
    assert descendants() == [] and scratch_folders(private_tmp) == []


def test_a_flood_of_output_is_capped_in_the_log(tmp_path):
    folder = build_folder(tmp_path / "sub", "head -c 30000000 /dev/zero | tr '\\0' x; echo; " + MAKE_MODULE)
    result = run_build(folder)
    assert result.ok
    assert len(result.log) < LOG_LIMIT + 4096
    assert "more bytes of output not kept" in result.log


@jailed
def test_writes_outside_the_scratch_folder_do_not_happen(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)  # only the jail, not permissions, may stop these writes
    sentinel = outside / "sentinel"
    folder = build_folder(
        tmp_path / "sub",
        *[
            f"echo pwned > {sentinel}",
            f"touch {outside}/touched",
            "echo pwned > escape-link/through-link",  # a link the submission ships
            "echo pwned > ../../escaped-upwards",
            f"mount -o remount,rw / ; mount -o remount,rw {outside}; echo pwned > {sentinel}",
            f"unshare --user --map-root-user --mount sh -c 'mount -o remount,rw /; echo pwned > {sentinel}'",
            "echo pwned > /dev/shm/lattice-escape",
            "echo pwned > /usr/lattice-escape",
            "echo 1 > /proc/sys/vm/drop_caches",
            f"python -c \"open('{sentinel}', 'w').write('pwned')\"",
            "echo ok > inside.txt",
            MAKE_MODULE,
        ],
        module="module.wasm",
    )
    (folder / "escape-link").symlink_to(outside)
    submission = load_submission(folder)
    # Run every command even though each fails: `;` joins them into one.
    commands = "; ".join(submission.commands)
    result = build_submission(
        dataclasses.replace(submission, commands=(commands,)),
        allowed=True,
        timeout=60,
        max_module_bytes=2**20,
    )
    assert "isolated build" in result.log
    assert result.ok, result.log  # the scratch folder itself stays writable
    assert list(outside.iterdir()) == []
    assert not Path("/dev/shm/lattice-escape").exists()
    assert not (tmp_path / "escaped-upwards").exists()
    assert not Path("/usr/lattice-escape").exists()
    assert "Read-only file system" in result.log
    assert not (folder / "inside.txt").exists() and not (folder / "module.wasm").exists()


@jailed
def test_the_build_is_not_root_and_has_no_network(tmp_path):
    probe = (
        "import os, socket; print('uid', os.getuid());\n"
        "try:\n socket.create_connection(('127.0.0.1', 22), timeout=2); print('net: connected')\n"
        "except OSError as e: print('net:', e.__class__.__name__)"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "probe.py").write_text(probe)
    result = run_build(build_folder(tmp_path / "sub", "python probe.py; id -u", MAKE_MODULE))
    assert result.ok, result.log
    assert "net: connected" not in result.log and "net:" in result.log
    if os.geteuid() == 0:
        assert "uid 65534" in result.log  # nobody, not root


@pytest.mark.parametrize("isolated", [True, False], ids=["jailed", "fallback"])
def test_processes_a_build_leaves_running_are_gone_after_it(tmp_path, monkeypatch, isolated):
    if isolated and not isolation().available:
        pytest.skip(f"no build isolation here: {isolation().reason}")
    if not isolated:
        monkeypatch.setenv(SWITCH, "off")
    token = f"{secrets.randbelow(10**6) + 10**6}"
    folder = build_folder(
        tmp_path / "sub",
        *[
            f"(sleep 3{token} &)",  # orphaned into init
            f"setsid sleep 4{token} > /dev/null 2>&1 &",  # a new session, out of our process group
            f"nohup sh -c 'sleep 5{token}' > /dev/null 2>&1 &",
            f"sh -c 'trap \"\" TERM HUP; exec sleep 6{token}' > /dev/null 2>&1 &",
            MAKE_MODULE,
        ],
    )
    result = run_build(folder)
    assert result.ok, result.log
    assert ("warning: build isolation is unavailable" in result.log) is not isolated
    deadline = time.monotonic() + 30
    while processes_running(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_running(token) == []


def test_special_files_in_the_submission_cannot_hang_the_copy(tmp_path):
    folder = build_folder(tmp_path / "sub", MAKE_MODULE)
    os.mkfifo(folder / "a-fifo")  # reading it would block for ever
    result = run_build(folder)
    assert result.ok
    assert "not copied, not a regular file: a-fifo" in result.log


def test_a_module_that_is_a_link_out_of_the_build_folder_is_refused(tmp_path):
    target = tmp_path / "secret.wasm"
    target.write_bytes(bytes(wasmtime.wat2wasm(ECHO)))
    result = run_build(build_folder(tmp_path / "sub", f"ln -s {target} module.wasm"))
    assert not result.ok and "module.wasm is a symbolic link" in result.detail


def test_a_huge_module_is_refused(tmp_path):
    result = run_build(build_folder(tmp_path / "sub", "head -c 2000000 /dev/zero > module.wasm"))
    assert not result.ok and "the case allows 1,048,576" in result.detail


def test_a_submission_folder_over_the_copy_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "COPY_LIMIT", 1000)
    folder = build_folder(tmp_path / "sub", MAKE_MODULE)
    (folder / "big.bin").write_bytes(b"x" * 2000)
    result = run_build(folder)
    assert not result.ok and "more than 1,000 bytes" in result.detail


@jailed
def test_a_fork_bomb_is_capped_and_cleaned_up(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the process cap applies to builds started by root (they run as nobody)")
    token = f"{secrets.randbelow(10**6) + 10**6}"
    bomb = f"i=0; while [ $i -lt 2000 ]; do sleep 7{token} & i=$((i+1)); done 2>/dev/null; echo spawned"
    result = run_build(build_folder(tmp_path / "sub", bomb, MAKE_MODULE), timeout=30)
    # The shell could not fork: the build's cgroup says so where there is one, else its exit.
    assert not result.ok and ("processes at once" in result.detail or "exited with status" in result.detail)
    assert processes_running(token) == []
