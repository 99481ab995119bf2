"""A build's own cgroup: one bound on the memory of all its processes together (shared
mappings and the tmpfs pages they write included, which per-process limits miss) and one
on how many processes it runs at once.

cgroup v2 is used where it offers the memory controller, else the v1 `memory` and `pids`
hierarchies. The cgroup is made next to (or under) the grader's own, named for the
grader's process so that those of a grader killed mid-build are swept by the next process
that uses the sandbox at all (`sandbox/leftovers.py`), not only by the next build.
The build's first process joins it before it runs anything (`joining`), so nothing of the
build ever runs outside it; a build that hits a limit is read from the cgroup's own
counters, never guessed from an exit status. Where no cgroup can be made, `build_cgroup`
says why and the build runs with its per-process limits only.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import Location, UserError

MEMORY_VARIABLE = "LATTICE_BUILD_MEMORY_MIB"  # total memory of a build, MiB
PROCESS_VARIABLE = "LATTICE_BUILD_PROCESSES"  # processes (and threads) of a build at once
DEFAULT_MEMORY_MIB = 2048
DEFAULT_PROCESSES = 512
_LEAST = {MEMORY_VARIABLE: 16, PROCESS_VARIABLE: 4}  # below these no build starts at all
MIB = 2**20
MOUNTINFO = "/proc/self/mountinfo"
OWN_CGROUPS = "/proc/self/cgroup"
_OPTIONAL = ("memory.memsw.limit_in_bytes", "memory.swap.max")  # only where swap is accounted
_NAME = re.compile(r"^lattice-build-(\d+)-(\d+)-[0-9a-f]+$")  # grader's pid, its pid namespace
# The build's first process: joins every cgroup file named before `--`, then becomes the build.
_JOIN = (
    'for f in "$@"; do shift; [ "$f" = -- ] && break; echo $$ > "$f" || '
    '{ echo "lattice build cgroup: cannot join $f" >&2; exit 125; }; done; exec "$@"'
)


@dataclass(frozen=True)
class BuildBounds:
    """What one build may use in total."""

    memory: int  # bytes
    processes: int

    @property
    def memory_words(self) -> str:
        mib = self.memory // MIB
        return f"{mib // 1024} GiB" if mib % 1024 == 0 else f"{mib} MiB"


def _bound(name: str, default: int) -> int:
    given = os.environ.get(name)
    if given is None or given.strip() == "":
        return default
    least = _LEAST[name]
    if not given.strip().isdigit() or int(given) < least:
        raise UserError(
            f"{given!r} is not a usable bound: a whole number of at least {least} (default {default})",
            Location(key=f"environment variable {name}"),
        )
    return int(given)


def build_bounds() -> BuildBounds:
    """The bounds of a build: 2 GiB and 512 processes unless the environment says otherwise."""
    return BuildBounds(
        _bound(MEMORY_VARIABLE, DEFAULT_MEMORY_MIB) * MIB, _bound(PROCESS_VARIABLE, DEFAULT_PROCESSES)
    )


def _mounts() -> dict[str, tuple[Path, str]]:
    """Controller ("" for cgroup v2) → (mount point, the hierarchy's path mounted there)."""
    found: dict[str, tuple[Path, str]] = {}
    with contextlib.suppress(OSError), open(MOUNTINFO, encoding="utf-8", errors="replace") as info:
        for line in info:
            fields = line.split()
            tail = fields[fields.index("-") + 1 :]
            if tail[0] == "cgroup2":
                found.setdefault("", (Path(fields[4]), fields[3]))
            elif tail[0] == "cgroup":
                for option in tail[2].split(","):
                    found.setdefault(option, (Path(fields[4]), fields[3]))
    return found


def _own_paths() -> dict[str, str]:
    """Controller ("" for v2) → the path of this process's cgroup in that hierarchy."""
    own: dict[str, str] = {}
    with contextlib.suppress(OSError), open(OWN_CGROUPS, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                own[controller] = path
    return own


def _own_folder(mount: tuple[Path, str], path: str | None) -> Path:
    point, mounted = mount
    if path is None or not (path == mounted or path.startswith(mounted.rstrip("/") + "/")):
        return point
    return point / path[len(mounted) :].lstrip("/")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _counter(path: Path, name: str) -> int | None:
    """A `name value` line of a cgroup's flat-keyed file."""
    for line in _read(path).splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return None


@dataclass(frozen=True)
class BuildCgroup:
    """The made cgroup: one folder in v2, a memory and a pids folder in v1."""

    version: int
    folders: tuple[Path, ...]
    bounds: BuildBounds

    @property
    def log_line(self) -> str:
        return (
            f"[cgroup v{self.version}: {self.bounds.memory_words} of memory in total for every "
            f"process of the build, shared mappings and tmpfs included; at most "
            f"{self.bounds.processes} processes at once]\n"
        )

    def joining(self, argv: list[str]) -> list[str]:
        """`argv` started by a shell that first moves itself into the cgroup, then execs it."""
        files = [str(folder / "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", _JOIN, "lattice-build-cgroup", *files, "--", *argv]

    def exceeded(self) -> str | None:
        """Which limit the build hit, read from the cgroup's counters; None if neither."""
        memory, pids = self.folders[0], self.folders[-1]
        if self.version == 2:
            events = memory / "memory.events"
            hit = (_counter(events, "oom") or 0) + (_counter(events, "oom_kill") or 0)
        else:  # kernels before 4.13 have no oom_kill counter: then any failed charge
            kills = _counter(memory / "memory.oom_control", "oom_kill")
            failed = _read(memory / "memory.failcnt").strip()
            hit = kills if kills is not None else int(failed) if failed.isdigit() else 0
        if hit:
            return (
                f"the build used more than {self.bounds.memory_words} of memory in total, "
                "the limit of its cgroup"
            )
        if _counter(pids / "pids.events", "max"):
            return (
                f"the build tried to run more than {self.bounds.processes} processes at once, "
                "the limit of its cgroup"
            )
        return None

    def kill_all(self, *, rounds: int = 200) -> None:
        """Kill every process still in the cgroup."""
        for folder in self.folders if self.version == 2 else ():  # v2 kills in one write (5.14 on)
            with contextlib.suppress(OSError):
                _write(folder / "cgroup.kill", "1")
        for _ in range(rounds):
            pids = {int(p) for f in self.folders for p in _read(f / "cgroup.procs").split() if p.isdigit()}
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left, then remove the folders (a dying process may hold one briefly)."""
        self.kill_all()
        for folder in self.folders:
            for _ in range(200):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def _pid_namespace() -> str:
    """The number of this process's PID namespace: a pid means something only within it."""
    try:
        return "".join(c for c in os.readlink("/proc/self/ns/pid") if c.isdigit()) or "0"
    except OSError:
        return "0"


def _sweep_stale(parent: Path) -> None:
    """Remove the cgroups left by graders of our PID namespace that are gone (killed
    mid-build; their builds died with them). One still holding a process is kept."""
    namespace = _pid_namespace()
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            match = _NAME.match(entry.name)
            if match and match.group(2) == namespace and not Path(f"/proc/{match.group(1)}").exists():
                with contextlib.suppress(OSError):
                    entry.rmdir()


def _parents() -> list[Path]:
    """Every folder `_create` may make a build's cgroup in: beside and under the grader's
    own cgroup in v2, under it and at the top of the v1 memory and pids hierarchies."""
    mounts, own = _mounts(), _own_paths()
    found: list[Path] = []
    if "" in mounts:
        folder = _own_folder(mounts[""], own.get(""))
        found += [folder, folder.parent]
    for controller in ("memory", "pids"):
        if controller in mounts:
            found += [_own_folder(mounts[controller], own.get(controller)), mounts[controller][0]]
    return list(dict.fromkeys(found))


def sweep_stale_cgroups() -> None:
    """Remove every cgroup a grader of our PID namespace left when it was killed mid-build,
    wherever a build's cgroup is made (called when any command first uses the sandbox)."""
    if os.path.exists(MOUNTINFO):
        for parent in _parents():
            _sweep_stale(parent)


def _make(parents: list[Path], name: str, version: int, limits: dict[str, str]) -> Path:
    """Make `name` under the first parent that takes it, with `limits` written in order."""
    problem = "no writable place"
    for parent in dict.fromkeys(parents):
        if version == 2 and not {"memory", "pids"} <= set(_read(parent / "cgroup.subtree_control").split()):
            with contextlib.suppress(OSError):
                _write(parent / "cgroup.subtree_control", "+memory +pids")
        _sweep_stale(parent)
        folder = parent / name
        try:
            folder.mkdir()
        except OSError as exc:
            problem = f"cannot make a cgroup in {parent}: {exc.strerror}"
            continue
        try:
            for file, value in limits.items():
                if file not in _OPTIONAL or (folder / file).exists():
                    _write(folder / file, value)
            return folder
        except OSError as exc:
            problem = f"cannot set the limits of {folder}: {exc.strerror}"
            folder.rmdir()
    raise OSError(problem)


def _create_v2(mount: tuple[Path, str], own: str | None, name: str, bounds: BuildBounds) -> BuildCgroup:
    """Under the grader's own v2 cgroup (where it may enable the controllers), else beside it."""
    folder = _own_folder(mount, own)
    if not {"memory", "pids"} <= set(_read(folder / "cgroup.controllers").split()):
        raise OSError("cgroup v2 offers no memory and pids controllers here")
    parents = [folder] if folder == mount[0] else [folder, folder.parent]
    limits = {"memory.max": str(bounds.memory), "memory.swap.max": "0", "pids.max": str(bounds.processes)}
    return BuildCgroup(2, (_make(parents, name, 2, limits),), bounds)


def _create_v1(
    mounts: dict[str, tuple[Path, str]], own: dict[str, str], name: str, bounds: BuildBounds
) -> BuildCgroup:
    """A memory and a pids cgroup under the grader's own, else at the hierarchies' tops."""
    memory = str(bounds.memory)
    made: list[Path] = []
    try:
        for controller, limits in (
            ("memory", {"memory.limit_in_bytes": memory, "memory.memsw.limit_in_bytes": memory}),
            ("pids", {"pids.max": str(bounds.processes)}),
        ):
            if controller not in mounts:
                raise OSError(f"no {controller} cgroup controller is mounted")
            folder = _own_folder(mounts[controller], own.get(controller))
            made.append(_make([folder, mounts[controller][0]], name, 1, limits))
    except OSError:
        BuildCgroup(1, tuple(made), bounds).remove()
        raise
    return BuildCgroup(1, tuple(made), bounds)


def _create(bounds: BuildBounds) -> BuildCgroup | str:
    """v2 where it offers the memory controller, else v1; or why neither could be made."""
    mounts, own = _mounts(), _own_paths()
    name = f"lattice-build-{os.getpid()}-{_pid_namespace()}-{secrets.token_hex(6)}"
    problems = []
    if "" in mounts:
        try:
            return _create_v2(mounts[""], own.get(""), name, bounds)
        except OSError as exc:
            problems.append(str(exc))
    if "memory" in mounts or not problems:
        try:
            return _create_v1(mounts, own, name, bounds)
        except OSError as exc:
            problems.append(str(exc))
    return "; ".join(problems)


@contextmanager
def build_cgroup(bounds: BuildBounds) -> Iterator[BuildCgroup | str]:
    """A fresh cgroup for one build, removed (with anything left in it) afterwards; or,
    where none can be made, why not."""
    made = _create(bounds) if os.path.exists(MOUNTINFO) else "not Linux"
    try:
        yield made
    finally:
        if isinstance(made, BuildCgroup):
            made.remove()


def probe() -> str | None:
    """Why no build cgroup can be made here, or None when one can."""
    with build_cgroup(build_bounds()) as made:
        return made if isinstance(made, str) else None


def unbounded_note(reason: str, bounds: BuildBounds) -> str:
    """The build log's line where no cgroup could be made: what bounds the build, what not."""
    return (
        f"[no cgroup for this build ({reason}): each process is bounded ({bounds.memory_words} of "
        "heap and private memory, RLIMIT_DATA) and each tmpfs by its size, at most "
        f"{bounds.memory_words}; shared mappings and many processes together are not bounded "
        "but by the time limit; processes: 512 at once for all builds as `nobody` (RLIMIT_NPROC), "
        "when the grader is root]\n"
    )
