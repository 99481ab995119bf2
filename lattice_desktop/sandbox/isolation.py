"""Where the machine allows it, build commands run in a jail (see build_jail.py):
read-only filesystem but the scratch folder, no network, their own PID namespace, and
never as root. Where it does not, they run as before with a warning in the build log,
and every process they leave behind is found by a marker in its environment and killed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SWITCH = "LATTICE_BUILD_ISOLATION"  # "off" forces the fallback (tests, odd machines)
MARKER = "LATTICE_BUILD_MARK"
_JAIL_SCRIPT = Path(__file__).with_name("build_jail.py")


@dataclass(frozen=True)
class Isolation:
    available: bool
    reason: str = ""  # why not, when not

    @property
    def log_line(self) -> str:
        if self.available:
            return (
                "[isolated build: filesystem read-only except the scratch folder, no network, "
                "own process namespace, not root]\n"
            )
        return (
            f"[warning: build isolation is unavailable here ({self.reason}); the commands ran "
            "with your user's rights and could write outside the scratch folder]\n"
        )


def jail_command(scratch_root: Path, workdir: Path, argv: list[str]) -> list[str]:
    """`argv` wrapped in the jail: namespaces from `unshare`, the rest from build_jail.py."""
    namespaces = [
        "--mount", "--propagation", "private", "--net", "--pid", "--fork", "--kill-child",
        "--mount-proc",
    ]
    if os.geteuid() != 0:
        namespaces = ["--user", "--map-root-user", *namespaces]
    # `unshare` dies with the grader (even on kill -9), and the jail with it.
    setpriv = shutil.which("setpriv")
    die_with_grader = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
    return [
        *die_with_grader, shutil.which("unshare") or "unshare", *namespaces, "--",
        sys.executable, "-I", str(_JAIL_SCRIPT), str(scratch_root), str(workdir), "--", *argv,
    ]


@cache
def _probe() -> Isolation:
    if not sys.platform.startswith("linux"):
        return Isolation(False, "namespaces need Linux")
    if shutil.which("unshare") is None:
        return Isolation(False, "util-linux `unshare` is not installed")
    with tempfile.TemporaryDirectory(prefix="lattice-jail-probe-") as root:
        jail = Path(root) / "jail"
        jail.mkdir()
        os.chmod(root, 0o777)  # only the read-only mount, not permissions, may stop the escape
        script = "echo ok > inside; echo escaped > ../outside 2>/dev/null; exit 0"
        try:
            done = subprocess.run(
                jail_command(jail, jail, ["/bin/sh", "-c", script]), capture_output=True,
                text=True, timeout=20, stdin=subprocess.DEVNULL, cwd="/",
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Isolation(False, f"unshare failed: {exc}")
        if done.returncode != 0 or not (jail / "inside").is_file():
            message = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            return Isolation(False, f"namespaces refused: {message}")
        if (Path(root) / "outside").exists():
            return Isolation(False, "the jail let a write through; not trusting it")
    return Isolation(True)


def isolation() -> Isolation:
    """Whether build commands can be jailed here (probed once per process)."""
    if os.environ.get(SWITCH, "").lower() in ("off", "0", "no"):
        return Isolation(False, f"turned off by {SWITCH}")
    return _probe()


def kill_marked(mark: str, *, rounds: int = 50) -> int:
    """Kill every process whose environment carries `MARKER=mark`; return how many."""
    needle = f"{MARKER}={mark}".encode()
    killed = 0
    for _ in range(rounds):
        found = [pid for pid in _pids() if _has(pid, needle)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
    return killed


def _pids() -> list[int]:
    me = os.getpid()
    try:
        return [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) != me]
    except OSError:
        return []


def _has(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return needle in environ.read().split(b"\0")
    except OSError:
        return False
