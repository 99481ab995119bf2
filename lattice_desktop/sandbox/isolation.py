"""Build commands run in a jail (see build_jail.py): a root holding only the system, the
toolchain and the scratch folder, read-only but the scratch folder, no network, their own
IPC and PID namespaces, and never as root. Where the jail cannot be set up, no build runs
unless the user explicitly allows an unisolated one (build.py); either way every process a
build leaves behind is found by a marker in its environment and killed.
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
from pathlib import Path

SWITCH = "LATTICE_BUILD_ISOLATION"  # "off" forces the fallback (tests, odd machines)
TOOLCHAIN = "LATTICE_BUILD_TOOLCHAIN"  # extra folders (os.pathsep) a build may read
MARKER = "LATTICE_BUILD_MARK"
TOOLCHAIN_VARIABLES = ("CARGO_HOME", "RUSTUP_HOME")  # kept when they name a toolchain folder
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
_JAIL_SCRIPT = Path(__file__).with_name("build_jail.py")


@dataclass(frozen=True)
class Isolation:
    available: bool
    reason: str = ""  # why not, when not

    @property
    def log_line(self) -> str:
        if self.available:
            return (
                "[isolated build: only the system, the toolchain and the scratch folder visible, "
                "read-only except the scratch folder, no network, own IPC and process "
                "namespaces, not root]\n"
            )
        return (
            f"[warning: build isolation is unavailable here ({self.reason}); you allowed an "
            "unisolated build, so the commands ran with your user's rights and could read "
            "your files and write outside the scratch folder]\n"
        )

    @property
    def summary(self) -> str:
        """One line for the terminal: whether the build ran isolated, and why not."""
        return "build ran isolated" if self.available else f"build ran NOT isolated ({self.reason})"


def named_toolchains() -> list[str]:
    """The folders named in $LATTICE_BUILD_TOOLCHAIN."""
    return [p for p in os.environ.get(TOOLCHAIN, "").split(os.pathsep) if p]


def python_toolchain() -> list[str]:
    """This Python (the venv and its base, where the bundled compilers live); none in a
    frozen bundle, whose folder holds the app and its bundled cases, not a toolchain."""
    if getattr(sys, "frozen", False):
        return []
    return [sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent)]


def toolchain_folders() -> list[str]:
    """What a build may read besides its scratch folder: the system folders, this Python
    and $LATTICE_BUILD_TOOLCHAIN."""
    return [*SYSTEM_FOLDERS, *python_toolchain(), *named_toolchains()]


def toolchain_environment() -> tuple[list[str], dict[str, str]]:
    """What the named toolchain folders add to a build's environment: their `bin` folders
    (or the folder itself, when it has none) go first on PATH; a rustup home (it holds
    `settings.toml` and `toolchains/`) becomes RUSTUP_HOME, a cargo home (`bin/cargo`)
    CARGO_HOME; a CARGO_HOME or RUSTUP_HOME of the grader's that lies inside a named
    folder is kept as it is."""
    path: list[str] = []
    variables: dict[str, str] = {}
    folders = [Path(f) for f in named_toolchains()]
    for folder in folders:
        path.append(str(folder / "bin") if (folder / "bin").is_dir() else str(folder))
        if (folder / "settings.toml").is_file() and (folder / "toolchains").is_dir():
            variables.setdefault("RUSTUP_HOME", str(folder))
        if (folder / "bin" / "cargo").exists():
            variables.setdefault("CARGO_HOME", str(folder))
    for name in TOOLCHAIN_VARIABLES:
        given = os.environ.get(name)
        if given and any(Path(given).is_relative_to(folder) for folder in folders):
            variables[name] = given
    return path, variables


def jail_command(
    scratch_root: Path,
    workdir: Path,
    argv: list[str],
    hides: tuple[Path, ...] = (),
    *,
    memory: int | None = None,
) -> list[str]:
    """`argv` wrapped in the jail: namespaces from `unshare`, the rest from build_jail.py;
    `memory` (the build's total) caps the jail's tmpfs and per-process limit."""
    namespaces = [
        "--mount",
        "--propagation",
        "private",
        "--net",
        "--ipc",
        "--pid",
        "--fork",
        "--kill-child",
        "--mount-proc",
    ]
    keeps = [arg for path in toolchain_folders() for arg in ("--keep", path)]
    keeps += [arg for path in hides for arg in ("--hide", str(path))]
    keeps += ["--memory", str(memory)] if memory is not None else []
    if os.geteuid() != 0:
        namespaces = ["--user", "--map-root-user", *namespaces]
    # `unshare` dies with the grader (even on kill -9), and the jail with it.
    setpriv = shutil.which("setpriv")
    die_with_grader = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
    return [
        *die_with_grader,
        shutil.which("unshare") or "unshare",
        *namespaces,
        "--",
        sys.executable,
        "-IS",  # isolated, and no site: the jail needs only the standard library
        str(_JAIL_SCRIPT),
        str(scratch_root),
        str(workdir),
        *keeps,
        "--",
        *argv,
    ]


class _Probed:
    """The jail found working in this process; a failure is not kept, so it is probed again."""

    working: Isolation | None = None


_probed = _Probed()


def _probe_once() -> Isolation:
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
                jail_command(jail, jail, ["/bin/sh", "-c", script]),
                check=False,
                capture_output=True,
                text=True,
                timeout=20,
                stdin=subprocess.DEVNULL,
                cwd="/",
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Isolation(False, f"unshare failed: {exc}")
        if done.returncode != 0 or not (jail / "inside").is_file():
            lines = done.stderr.strip().splitlines()
            jail_said = [line for line in lines if line.startswith("lattice build jail:")]
            if jail_said:
                return Isolation(False, jail_said[-1].removeprefix("lattice build jail: "))
            message = (lines or [f"exit {done.returncode}"])[-1]
            return Isolation(False, f"unshare could not create the namespaces: {message}")
        if (Path(root) / "outside").exists():
            return Isolation(False, "the jail let a write through; not trusting it")
    return Isolation(True)


def isolation() -> Isolation:
    """Whether build commands can be jailed here. A working jail is probed once per
    process; a failed probe is tried again next time (the cause may have gone)."""
    if os.environ.get(SWITCH, "").lower() in ("off", "0", "no"):
        return Isolation(False, f"turned off by {SWITCH}")
    if _probed.working is not None:
        return _probed.working
    found = _probe_once()
    if found.available:
        _probed.working = found
    return found


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
