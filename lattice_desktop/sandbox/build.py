"""Run a submission's [build] commands in a scratch copy, with limits, capturing output.

Commands from a manifest are someone else's code: they run only when the caller passes
`allowed=True` (a CLI flag, or a confirmation in the app that shows the commands). They
run jailed where the machine allows it (isolation.py), with a time limit, a capped log,
a size-capped scratch folder (scratch.py), their memory and process count bounded in total
by a cgroup of their own (cgroup.py), and nothing of theirs left running afterwards.
The module is then read only beneath the scratch folder, never through a link
(beneath.py), and a build the grader's machine lacks a tool for is refused (tools.py).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.no_follow import NotBeneath, open_folder, read_beneath
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.resources import RESOURCES
from lattice_desktop.sandbox.beneath import copy_folder, open_beneath
from lattice_desktop.sandbox.build_jail import NOBODY
from lattice_desktop.sandbox.cgroup import BuildCgroup, build_bounds, build_cgroup, unbounded_note
from lattice_desktop.sandbox.isolation import (
    MARKER,
    Isolation,
    isolation,
    jail_command,
    kill_marked,
    python_toolchain,
    toolchain_environment,
)
from lattice_desktop.sandbox.leftovers import sweep_leftovers
from lattice_desktop.sandbox.scratch import capped_scratch, disk_use, scratch_prefix
from lattice_desktop.sandbox.tools import check_after_failure, check_before_build
from lattice_desktop.work import Work

LOG_LIMIT = 256 * 1024
COPY_LIMIT = 1024 * 1024 * 1024  # bytes of submission folder copied into the scratch folder
DISK_LIMIT = 2 * 1024**3  # bytes the scratch folder (a tmpfs, where the grader is root) holds


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    log: str
    module: bytes | None
    detail: str
    seconds: float
    isolation: Isolation | None = None  # how the commands ran; None when none ran


def scrubbed_environment(home: Path) -> dict[str, str]:
    """Only what a compiler needs: no tokens, no proxies, no user configuration; the named
    toolchains' folders and variables (CARGO_HOME, RUSTUP_HOME) are kept."""
    tool_path, tool_variables = toolchain_environment()
    python_bin = [str(Path(sys.executable).parent)] if python_toolchain() else []
    return {
        "PATH": os.pathsep.join([*tool_path, *python_bin, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TMPDIR": str(home / ".tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "SOURCE_DATE_EPOCH": "0",
        **tool_variables,
    }


def answer_folders(case: CaseManifest) -> tuple[Path, ...]:
    """Folders a build must never see: the case's own and those of its expected answers."""
    folders = {case.path.parent, *(e.expected_path.parent for e in case.cases if e.expected_path)}
    return tuple(sorted(folders))


def build_submission(
    submission: Submission,
    *,
    allowed: bool,
    timeout: float,
    max_module_bytes: int,
    work: Work | None = None,
    allow_unisolated: bool = False,
    hidden: Iterable[Path] = (),
) -> BuildResult:
    """Build in a scratch copy and return the module bytes, or why there are none.

    Fails closed: where the jail cannot be set up, no command runs unless
    `allow_unisolated` (the user's explicit second permission) is given. `hidden` folders
    (the case's, `answer_folders`) and the bundled resources stay out of the jail whatever
    it keeps. Raises `MissingTool` (a `UserError`) when the grader's machine lacks a tool.
    """
    if not submission.commands:
        return load_shipped_module(submission, max_module_bytes)
    if not allowed and os.path.lexists(submission.module_path):
        shipped = load_shipped_module(submission, max_module_bytes)
        note = "(build commands not run: grading the module the submission ships)\n"
        return BuildResult(shipped.ok, note, shipped.module, shipped.detail, 0.0)
    if not allowed:
        raise UserError(
            f"this submission ships no {submission.module_path.name} and has build commands; "
            "they run only when you allow it "
            "(--build on the command line, or confirm in the app). Commands:\n  "
            + "\n  ".join(submission.commands)
        )
    sweep_leftovers()
    work = work or Work()
    started = time.monotonic()
    jail = isolation()
    if not jail.available and not allow_unisolated:
        raise UserError(
            f"build isolation is unavailable here ({jail.reason}), so no build command was run. "
            "To run them anyway with your user's rights, allow an unisolated build explicitly "
            "(--allow-unisolated-build on the command line, or the second confirmation in the app)"
        )
    log: list[str] = [jail.log_line]
    probe_env = scrubbed_environment(submission.folder)
    check_before_build(submission, probe_env["PATH"])
    bounds = build_bounds()
    hides = tuple(sorted({Path(os.path.realpath(p)) for p in (RESOURCES, *hidden)}))

    def failed(detail: str) -> BuildResult:
        return BuildResult(False, "".join(log), None, detail, time.monotonic() - started, jail)

    with (
        tempfile.TemporaryDirectory(prefix=scratch_prefix("build")) as scratch_root,
        capped_scratch(scratch_root, min(DISK_LIMIT, bounds.memory)) as uncapped,
        build_cgroup(bounds) as cgroup,
    ):
        log.append(unbounded_note(cgroup, bounds) if isinstance(cgroup, str) else cgroup.log_line)
        if uncapped and jail.available:
            log.append(f"[scratch folder not size-capped ({uncapped})]\n")
        root_fd = os.open(scratch_root, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            scratch = Path(scratch_root) / "src"
            problem = _copy_submission(submission, scratch, log)
            if problem:
                return failed(problem)
            (scratch / ".tmp").mkdir(exist_ok=True)
            env = scrubbed_environment(scratch)
            env[MARKER] = secrets.token_hex(16)
            for command in submission.commands:
                remaining = timeout - (time.monotonic() - started)
                log.append(f"$ {command}\n")
                code, output, reason = run_build_command(
                    command,
                    scratch,
                    env,
                    remaining,
                    work,
                    jail=jail,
                    scratch_root=Path(scratch_root),
                    hides=hides,
                    disk_limit=DISK_LIMIT if uncapped else None,
                    cgroup=cgroup if isinstance(cgroup, BuildCgroup) else None,
                    memory=bounds.memory,
                )
                log.append(output)
                if reason:
                    log.append(f"[{reason}]\n")
                    return failed(reason)
                if code != 0:
                    check_after_failure(submission, code, output, env["PATH"])
                    return failed(f"`{command}` exited with status {code}")
            as_uid = NOBODY if jail.available and os.geteuid() == 0 else None
            read = _read_module(root_fd, submission, max_module_bytes, as_uid)
        finally:
            os.close(root_fd)
    if isinstance(read, str):
        return failed(read)
    return BuildResult(True, "".join(log), read, "", time.monotonic() - started, jail)


def _read_module(
    root_fd: int, submission: Submission, max_module_bytes: int, as_uid: int | None
) -> bytes | str:
    """The built module, or why it is refused. It is opened beneath the scratch root (the
    descriptor taken before the build ran) without following any link, as the build's
    user could open it: a build that swapped a folder on the way for a link cannot make the
    grader read another file with the grader's rights."""
    try:
        fd = open_beneath(root_fd, f"src/{submission.module}", as_uid=as_uid)
    except NotBeneath as exc:
        if exc.missing:
            return f"the build finished but produced no {submission.module}"
        return (
            f"{submission.module} was not read: {exc} (the module is read only beneath the build "
            "folder `src`, as the build's user could, without following links)"
        )
    with os.fdopen(fd, "rb") as file:
        size = os.fstat(fd).st_size
        if size > max_module_bytes:
            return f"{submission.module} is {size:,} bytes; the case allows {max_module_bytes:,}"
        data = file.read(max_module_bytes + 1)
    if len(data) > max_module_bytes:
        return f"{submission.module} is over the {max_module_bytes:,} bytes the case allows"
    return data


def _copy_submission(submission: Submission, target: Path, log: list[str]) -> str | None:
    """Copy the submission folder from its descriptor (the folder its manifest came from):
    links stay links and are never followed, special files (a FIFO would block the copy for
    ever) are left out, and the total is capped. Returns why it failed, if it did."""
    try:
        folder_fd = open_folder(submission.folder, submission.folder_id)
    except NotBeneath as exc:
        return f"the submission folder could not be copied: {exc}"
    try:
        copy_folder(folder_fd, target, limit=COPY_LIMIT, log=log)
    except NotBeneath as exc:
        return str(exc)
    except OSError as exc:
        return f"the submission folder could not be copied: {exc}"
    finally:
        os.close(folder_fd)
    return None


def load_shipped_module(submission: Submission, max_module_bytes: int) -> BuildResult:
    """Use the module the submission ships, without running anything.

    It is read once from the submission folder's descriptor, one component at a time
    (no_follow.py), from the very folder the manifest came from: a link out of the folder
    (another submission's module, /proc, a device), a special file, or a folder swapped
    for a link at any moment is refused, as a build's is. Links inside the folder are fine.
    """

    def refused(detail: str) -> BuildResult:
        return BuildResult(False, "", None, detail, 0.0)

    try:
        folder_fd = open_folder(submission.folder, submission.folder_id)
    except NotBeneath as exc:
        return refused(f"{submission.module} was not read: {exc}")
    try:
        data = read_beneath(
            folder_fd,
            submission.module,
            limit=max_module_bytes,
            links_inside=True,
            within="the submission folder",
        )
    except NotBeneath as exc:
        if exc.missing:
            raise UserError(_missing_module(submission)) from None
        if exc.size is not None:
            return refused(f"{submission.module} is {exc.size:,} bytes; the case allows {max_module_bytes:,}")
        return refused(f"{submission.module} was not read: {exc}")
    finally:
        os.close(folder_fd)
    return BuildResult(True, "(shipped module, not built)\n", data, "", 0.0)


def run_build_command(
    command: str,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    work: Work,
    *,
    jail: Isolation | None = None,
    scratch_root: Path | None = None,
    hides: tuple[Path, ...] = (),
    disk_limit: int | None = None,
    cgroup: BuildCgroup | None = None,
    memory: int | None = None,
) -> tuple[int | None, str, str | None]:
    """Run one shell command (jailed when `jail` is available) in its own process group;
    at the end kill the group and every process carrying the build's environment marker.
    With `disk_limit` (a scratch folder that is not a capped tmpfs) the folder's use is
    measured every quarter second and the build stopped past it; so is, in its `cgroup`,
    whether the build hit its memory or process limit (`memory` also caps the jail's tmpfs)."""
    if timeout <= 0:
        return None, "", "build time limit reached"
    argv = ["/bin/sh", "-c", command]
    if jail is not None and jail.available and scratch_root is not None:
        argv = jail_command(scratch_root, cwd, argv, hides, memory=memory)
    if cgroup is not None:
        argv = cgroup.joining(argv)
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    chunks: list[bytes] = []
    dropped = [0]

    def drain() -> None:
        kept = 0
        stdout = process.stdout
        assert stdout is not None
        for chunk in iter(lambda: stdout.read(65536), b""):
            if kept < LOG_LIMIT:
                chunks.append(chunk[: LOG_LIMIT - kept])
                dropped[0] += max(0, len(chunk) - (LOG_LIMIT - kept))
                kept += len(chunk)
            else:
                dropped[0] += len(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    next_measure = time.monotonic() + 0.25
    reason = None
    try:
        while process.poll() is None:
            if work.cancelled:
                reason = "cancelled"
                break
            if time.monotonic() > deadline:
                reason = f"build time limit of {timeout:.0f} s reached; the build was stopped"
                break
            if cgroup is not None and (reason := _limit_hit(cgroup, command)):
                break
            if disk_limit is not None and time.monotonic() > next_measure:
                next_measure = time.monotonic() + 0.25
                if disk_use(scratch_root or cwd, disk_limit) > disk_limit:
                    reason = f"the build wrote more than the {disk_limit:,} bytes a build may; it was stopped"
                    break
            with contextlib.suppress(subprocess.TimeoutExpired):  # back as soon as it ends
                process.wait(timeout=0.02)
    finally:  # Ctrl+C included: nothing of the build outlives this call
        _kill_group(process.pid)
        process.wait()
        if MARKER in env:
            kill_marked(env[MARKER])  # left running in another session, or holding the pipe
        if cgroup is not None:
            cgroup.kill_all()
            reason = reason or _limit_hit(cgroup, command)
    reader.join(timeout=2)
    if process.stdout is not None:
        process.stdout.close()
    output = b"".join(chunks).decode("utf-8", "replace")
    if dropped[0]:
        output += f"\n[{dropped[0]:,} more bytes of output not kept]\n"
    if reason == "cancelled":
        raise Cancelled()
    return process.returncode, output, reason


def _limit_hit(cgroup: BuildCgroup, command: str) -> str | None:
    hit = cgroup.exceeded()
    return f"{hit}; command `{command}`" if hit else None


def _kill_group(pid: int) -> None:
    """Stop the command and anything it left running (same session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _missing_module(submission: Submission) -> str:
    """What to do about a module that is not there, for what this submission has: its build
    commands may make it, but a submission without any can only ship it."""
    where = f"{submission.module} is not in {submission.folder}"
    if submission.commands:
        return f"{where}; allow its build commands (they make it) or ship the module"
    return (
        f"{where}, and the submission has no build commands to make it: ship {submission.module} "
        "in the folder, or add the commands that build it under [build] in submission.toml"
    )
