"""Run a submission's [build] commands in a scratch copy, with limits, capturing output.

Commands from a manifest are someone else's code: they run only when the caller passes
`allowed=True` (a CLI flag, or a confirmation in the app that shows the commands). They
run jailed where the machine allows it (isolation.py), with a time limit, a capped log,
and nothing of theirs left running afterwards.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.sandbox.isolation import MARKER, Isolation, isolation, jail_command, kill_marked
from lattice_desktop.sandbox.scratch import scratch_prefix
from lattice_desktop.work import Work

LOG_LIMIT = 256 * 1024
COPY_LIMIT = 1024 * 1024 * 1024  # bytes of submission folder copied into the scratch folder


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    log: str
    module: bytes | None
    detail: str
    seconds: float
    isolation: Isolation | None = None  # how the commands ran; None when none ran


def scrubbed_environment(home: Path) -> dict[str, str]:
    """Only what a compiler needs: no tokens, no proxies, no user configuration."""
    python_bin = str(Path(sys.executable).parent)
    return {
        "PATH": os.pathsep.join([python_bin, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TMPDIR": str(home / ".tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "SOURCE_DATE_EPOCH": "0",
    }


def build_submission(
    submission: Submission,
    *,
    allowed: bool,
    timeout: float,
    max_module_bytes: int,
    work: Work | None = None,
    allow_unisolated: bool = False,
) -> BuildResult:
    """Build in a scratch copy and return the module bytes, or why there are none.

    Fails closed: where the jail cannot be set up, no command runs unless
    `allow_unisolated` (the user's explicit second permission) is given.
    """
    if not submission.commands:
        return load_shipped_module(submission, max_module_bytes)
    if not allowed and os.path.lexists(submission.module_path):
        shipped = load_shipped_module(submission, max_module_bytes)
        note = "(build commands not run: grading the module the submission ships)\n"
        return BuildResult(shipped.ok, note, shipped.module, shipped.detail, 0.0)
    if not allowed:
        raise UserError(
            "this submission has build commands; they run only when you allow it "
            "(--build on the command line, or confirm in the app). Commands:\n  "
            + "\n  ".join(submission.commands)
        )
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

    def failed(detail: str) -> BuildResult:
        return BuildResult(False, "".join(log), None, detail, time.monotonic() - started, jail)

    with tempfile.TemporaryDirectory(prefix=scratch_prefix("build")) as scratch_root:
        scratch = Path(scratch_root) / "src"
        problem = _copy_submission(submission.folder, scratch, log)
        if problem:
            return failed(problem)
        (scratch / ".tmp").mkdir(exist_ok=True)
        env = scrubbed_environment(scratch)
        env[MARKER] = secrets.token_hex(16)
        for command in submission.commands:
            remaining = timeout - (time.monotonic() - started)
            log.append(f"$ {command}\n")
            code, output, reason = _run(
                command, scratch, env, remaining, work, jail=jail, scratch_root=Path(scratch_root)
            )
            log.append(output)
            if reason:
                log.append(f"[{reason}]\n")
                return failed(reason)
            if code != 0:
                return failed(f"`{command}` exited with status {code}")
        return dataclasses.replace(
            _read_module(scratch, submission, max_module_bytes, log, started), isolation=jail
        )


def _read_module(
    scratch: Path, submission: Submission, max_module_bytes: int, log: list[str], started: float
) -> BuildResult:
    """The built module, if it is a regular file inside the scratch folder and small enough."""

    def failed(detail: str) -> BuildResult:
        return BuildResult(False, "".join(log), None, detail, time.monotonic() - started)

    module = scratch / submission.module
    if not module.is_file():
        return failed(f"the build finished but produced no {submission.module}")
    if not module.resolve().is_relative_to(scratch.resolve()):
        return failed(f"{submission.module} is a link to a file outside the build folder")
    size = module.stat().st_size
    if size > max_module_bytes:
        return failed(f"{submission.module} is {size:,} bytes; the case allows {max_module_bytes:,}")
    with module.open("rb") as file:
        data = file.read(max_module_bytes + 1)
    if len(data) > max_module_bytes:
        return failed(f"{submission.module} is over the {max_module_bytes:,} bytes the case allows")
    return BuildResult(True, "".join(log), data, "", time.monotonic() - started)


def _copy_submission(source: Path, target: Path, log: list[str]) -> str | None:
    """Copy the submission folder: links stay links, special files (a FIFO would block the
    copy for ever) are left out, and the total is capped. Returns why it failed, if it did."""
    total = [0]

    def copy(src: str, dst: str) -> None:
        info = os.lstat(src)
        if not stat.S_ISREG(info.st_mode):
            log.append(f"[not copied, not a regular file: {os.path.relpath(src, source)}]\n")
            return
        total[0] += info.st_size
        if total[0] > COPY_LIMIT:
            raise _TooBig()
        shutil.copy2(src, dst)

    try:
        shutil.copytree(source, target, symlinks=True, copy_function=copy)
    except _TooBig:
        return f"the submission folder holds more than {COPY_LIMIT:,} bytes; not copied"
    except (OSError, shutil.Error) as exc:
        return f"the submission folder could not be copied: {exc}"
    return None


class _TooBig(Exception):
    pass


def load_shipped_module(submission: Submission, max_module_bytes: int) -> BuildResult:
    """Use the module the submission ships, without running anything.

    It must be a regular file inside the submission folder: a link out of it (another
    submission's module, /proc, a device) or a special file is refused, as a build's is.
    """
    path = submission.module_path
    if not os.path.lexists(path):
        raise UserError(
            f"{submission.module} is not in {submission.folder}; build the submission "
            "first (allow its build commands) or ship the module"
        )

    def refused(detail: str) -> BuildResult:
        return BuildResult(False, "", None, detail, 0.0)

    resolved = path.resolve()
    if not resolved.is_relative_to(submission.folder.resolve()):
        return refused(f"{submission.module} is a link to a file outside the submission folder ({resolved})")
    try:
        fd = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        return refused(f"{submission.module} cannot be opened: {exc.strerror}")
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return refused(
                f"{submission.module} is not a regular file (a FIFO, device or other special file)"
            )
        if info.st_size > max_module_bytes:
            return refused(
                f"{submission.module} is {info.st_size:,} bytes; the case allows {max_module_bytes:,}"
            )
        data = file.read(max_module_bytes + 1)
    if len(data) > max_module_bytes:
        return refused(f"{submission.module} is over the {max_module_bytes:,} bytes the case allows")
    return BuildResult(True, "(shipped module, not built)\n", data, "", 0.0)


def _run(
    command: str,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    work: Work,
    *,
    jail: Isolation | None = None,
    scratch_root: Path | None = None,
) -> tuple[int | None, str, str | None]:
    """Run one shell command (jailed when `jail` is available) in its own process group;
    at the end kill the group and every process carrying the build's environment marker."""
    if timeout <= 0:
        return None, "", "build time limit reached"
    argv = ["/bin/sh", "-c", command]
    if jail is not None and jail.available and scratch_root is not None:
        argv = jail_command(scratch_root, cwd, argv)
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
    reason = None
    try:
        while process.poll() is None:
            if work.cancelled:
                reason = "cancelled"
                break
            if time.monotonic() > deadline:
                reason = f"build time limit of {timeout:.0f} s reached; the build was stopped"
                break
            time.sleep(0.02)
    finally:  # Ctrl+C included: nothing of the build outlives this call
        _kill_group(process.pid)
        process.wait()
        if MARKER in env:
            kill_marked(env[MARKER])  # left running in another session, or holding the pipe
    reader.join(timeout=2)
    if process.stdout is not None:
        process.stdout.close()
    output = b"".join(chunks).decode("utf-8", "replace")
    if dropped[0]:
        output += f"\n[{dropped[0]:,} more bytes of output not kept]\n"
    if reason == "cancelled":
        raise Cancelled()
    return process.returncode, output, reason


def _kill_group(pid: int) -> None:
    """Stop the command and anything it left running (same session)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
