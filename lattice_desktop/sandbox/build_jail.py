"""The build jail's set-up: a new root holding only the system, the toolchain and the
scratch folder, read-only but the scratch folder, then the build as an unprivileged user.

    unshare [--user --map-root-user] --mount --propagation private --net --ipc --pid \
        --fork --kill-child --mount-proc -- \
        python -IS build_jail.py SCRATCH_ROOT WORKDIR [--keep PATH]... [--hide PATH]... \
        [--memory BYTES] -- CMD...

`unshare` gives it private mount, network, IPC (SysV and POSIX objects die with it) and
PID namespaces. This script runs *as a file* with `python -IS`, so nothing in the
submission's folder can shadow it, and without `site` (no site-packages, no .pth file
runs: it starts in a third of the time). It builds a new root on a tmpfs: the system folders
and every `--keep` path (the toolchain) bound at their own paths, the scratch folder, a
fresh /proc, a minimal /dev, and private empty /tmp and /dev/shm; then it pivots into it
and detaches the host's tree. Host homes, the user's data folder, /run and /tmp with their
Unix sockets (X11, D-Bus, databases) are simply not there; every `--hide` folder (the
bundled resources, the case being graded) that a kept folder would show is covered by an
empty read-only tmpfs, so no install layout shows the expected answers. Every mount but
the scratch folder and the private tmpfs is made read-only, and the command runs through
`setpriv`:

* started by the machine's root, the build becomes `nobody` with no capability at all
  (the scratch tree is handed to `nobody`); a build that stayed root would pass every
  permission check;
* started by anyone else (inside a user namespace), it keeps the user's identity.

Each process may map MEMORY_LIMIT bytes of heap and private memory (RLIMIT_DATA) and write
files of up to FILE_LIMIT bytes; the scratch folder itself is size-capped (scratch.py).
`--memory` (the build's total, which its cgroup enforces: cgroup.py) lowers the per-process
limit and the sizes of the private tmpfs to at most that total.

Either way every capability is gone and no_new_privs is set, so the build cannot remount
anything writable (a user namespace of its own gets the mounts locked read-only).

Only the standard library may be imported here. Exit 125 means the jail could not be set
up; the message says why.
"""

from __future__ import annotations

import ctypes
import os
import resource
import shutil
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

SETUP_FAILED = 125

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_RELATIME, MS_STRICTATIME, MS_NOSYMFOLLOW = 16384, 1 << 21, 1 << 24, 256
_PER_MOUNT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
    "nosymfollow": MS_NOSYMFOLLOW,
}
PR_SET_PDEATHSIG = 1
NOBODY = 65534
FILE_LIMIT = 2 * 1024**3  # bytes in any one file the build writes
MEMORY_LIMIT = 2 * 1024**3  # RLIMIT_DATA (heap and private writable mappings) of each process
PROCESS_LIMIT = 512  # processes and threads of `nobody`

MNT_DETACH = 2
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PRIVATE_TMPFS = {"/tmp": 512 * 1024**2, "/dev/shm": 64 * 1024**2}  # mount point: size

DROP_ALL = ("--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs")
AS_NOBODY = (
    f"--reuid={NOBODY}",
    f"--regid={NOBODY}",
    "--clear-groups",
    *DROP_ALL,
    "--pdeathsig=KILL",  # changing user clears the parent-death signal: set it again after
)

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(message: str) -> NoReturn:
    print(f"lattice build jail: {message}", file=sys.stderr, flush=True)
    sys.exit(SETUP_FAILED)


def _mount(
    source: str | None, target: str, flags: int, fstype: str | None = None, data: str | None = None
) -> None:
    if (
        _libc.mount(
            None if source is None else source.encode(),
            target.encode(),
            None if fstype is None else fstype.encode(),
            ctypes.c_ulong(flags),
            None if data is None else data.encode(),
        )
        != 0
    ):
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), target)


def _keep(path: str, new_root: str) -> None:
    """Make `path` appear at the same place in the new root: a link stays a link, a folder
    or file is bound (read-only later) through intermediate folders made for it."""
    inner = new_root + path
    if os.path.islink(path):
        os.makedirs(os.path.dirname(inner), mode=0o755, exist_ok=True)
        if not os.path.lexists(inner):
            os.symlink(os.readlink(path), inner)
        return
    if os.path.isdir(path):
        os.makedirs(inner, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(inner), mode=0o755, exist_ok=True)
        open(inner, "a").close()
    _mount(path, inner, MS_BIND | MS_REC)


def _under(path: str, roots: list[str]) -> bool:
    return any(_inside(path, root) for root in roots)


def _make_dev(dev: str) -> None:
    """A minimal /dev: a few harmless devices bound from the host and the fd links."""
    os.makedirs(dev, mode=0o755, exist_ok=True)
    _mount("tmpfs", dev, MS_NOSUID | MS_NOEXEC, "tmpfs", "mode=755,size=1m")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            open(f"{dev}/{name}", "a").close()
            _mount(f"/dev/{name}", f"{dev}/{name}", MS_BIND)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"{dev}/{name}")


def _hide(hides: Sequence[str], keeps: list[str], placed: list[str], new_root: str) -> None:
    """Cover each hidden folder that a kept folder shows with an empty tmpfs (made read-only
    with the rest), then bind again the kept folders that lie inside it."""
    for path in sorted({os.path.normpath(h) for h in hides}, key=len):
        inner = new_root + path
        shown = _under(path, placed) or any(_inside(k, path) for k in placed)
        if not shown or os.path.islink(inner) or not os.path.isdir(inner):
            continue
        _mount("tmpfs", inner, MS_NOSUID | MS_NODEV | MS_NOEXEC, "tmpfs", "mode=755,size=64k")
        again: list[str] = []
        for kept in keeps:  # parents first
            if _inside(kept, path) and kept != path and not _under(kept, again):
                _keep(kept, new_root)
                again.append(kept)


def enter_new_root(
    scratch_root: str, keeps: list[str], hides: Sequence[str] = (), memory: int = MEMORY_LIMIT
) -> None:
    """Pivot into a tmpfs that holds only `keeps`, the scratch folder, /proc, a minimal
    /dev and private /tmp and /dev/shm (none larger than `memory`); the host's tree is
    detached."""
    new_root = os.path.join(scratch_root, ".jail-root")
    os.makedirs(new_root, mode=0o755, exist_ok=True)
    _mount("tmpfs", new_root, MS_NOSUID | MS_NODEV, "tmpfs", "mode=755,size=16m")
    _make_dev(new_root + "/dev")
    # The private tmpfs next (after /dev, which would cover /dev/shm), so that a kept folder
    # under /tmp (a checkout's venv there) is bound on top of it rather than hidden by it.
    for point, size in PRIVATE_TMPFS.items():
        os.makedirs(new_root + point, exist_ok=True)
        options = f"mode=1777,size={min(size, memory)}"
        _mount("tmpfs", new_root + point, MS_NOSUID | MS_NODEV, "tmpfs", options)
    kept = [
        path
        for path in sorted({os.path.normpath(k) for k in keeps}, key=len)
        if os.path.lexists(path) and not _inside(path, scratch_root)
    ]
    placed: list[str] = []
    for path in kept:
        if not _under(path, placed):
            _keep(path, new_root)
            placed.append(path)
    _hide(hides, kept, placed, new_root)
    os.makedirs(new_root + "/proc", mode=0o555, exist_ok=True)
    _mount("proc", new_root + "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "proc")
    os.makedirs(new_root + scratch_root, mode=0o755, exist_ok=True)
    _mount(scratch_root, new_root + scratch_root, MS_BIND)
    number = PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(38, f"no pivot_root number known for {os.uname().machine}", new_root)
    os.chdir(new_root)
    if _libc.syscall(ctypes.c_long(number), b".", b".") != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), "pivot_root")
    if _libc.umount2(b".", MNT_DETACH) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), "detaching the host's tree")
    os.chdir("/")


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounts() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) of every visible mount but proc, parents first.

    A mount stacked on the same point hides the one below it, so only the top one counts.
    proc stays as it is: stage two writes its user-namespace maps there, and the kernel
    checks proc's sensitive files (sysctl) against the first user namespace, where the
    build has no privileges.
    """
    found: dict[str, set[str]] = {}
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as info:
        for line in info:
            fields = line.split()
            point = _unescape(fields[4])
            fstype = fields[fields.index("-") + 1]
            found.pop(point, None)
            if fstype != "proc":
                found[point] = set(fields[5].split(","))
    return list(found.items())


def _real_root() -> bool:
    """Root of the machine, not just of a user namespace we made."""
    if os.geteuid() != 0:
        return False
    with open("/proc/self/uid_map", encoding="ascii") as uid_map:
        return any(line.split()[:2] == ["0", "0"] for line in uid_map)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def make_read_only(scratch_root: str) -> list[str]:
    """Remount everything read-only but the scratch folder and the private tmpfs."""
    problems = []

    def writable(point: str) -> bool:  # a toolchain kept under /tmp is not the private tmpfs
        return _inside(point, scratch_root) or point in PRIVATE_TMPFS

    for point, options in mounts():
        if writable(point) or "ro" in options:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for name in options:
            flags |= _PER_MOUNT_FLAGS.get(name, 0)
        try:
            _mount(None, point, flags)
        except OSError as exc:
            if exc.errno == 2:  # ENOENT: a mount point we cannot reach; nothing to write there
                continue
            problems.append(f"{point}: {exc.strerror}")
    still_writable = [p for p, o in mounts() if "rw" in o and not writable(p)]
    if still_writable:
        problems.append("still writable: " + ", ".join(still_writable))
    return problems


def give_to_nobody(scratch_root: str) -> None:
    """Hand the scratch tree to `nobody`, never following a link out of it."""
    for folder, dirs, files in os.walk(scratch_root):
        os.chown(folder, NOBODY, NOBODY, follow_symlinks=False)
        for name in dirs + files:
            os.chown(os.path.join(folder, name), NOBODY, NOBODY, follow_symlinks=False)


USAGE = (
    "usage: build_jail.py SCRATCH_ROOT WORKDIR [--keep PATH]... [--hide PATH]... [--memory BYTES] "
    "-- COMMAND..."
)


def _arguments(argv: list[str]) -> tuple[str, str, list[str], list[str], int, list[str]]:
    """SCRATCH_ROOT WORKDIR [--keep PATH]... [--hide PATH]... [--memory BYTES] -- COMMAND..."""
    if "--" not in argv or len(argv) < 4:
        _fail(USAGE)
    split = argv.index("--")
    head, command = argv[:split], argv[split + 1 :]
    pairs = [(head[i], head[i + 1]) for i in range(2, len(head) - 1, 2)]
    keeps = [path for flag, path in pairs if flag == "--keep"]
    hides = [path for flag, path in pairs if flag == "--hide"]
    memories = [value for flag, value in pairs if flag == "--memory" and value.isdigit()]
    if len(head) < 2 or (len(keeps) + len(hides) + len(memories)) * 2 != len(head) - 2 or not command:
        _fail(USAGE)
    memory = min([MEMORY_LIMIT, *(int(m) for m in memories)])
    return os.path.realpath(head[0]), head[1], keeps, hides, memory, command


def main(argv: list[str]) -> None:
    scratch_root, workdir, keeps, hides, memory_total, command = _arguments(argv)
    # Die with the grader: the signal survives exec into stage two.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        _fail("the grader is gone")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        _fail("util-linux `setpriv` is not installed")
    as_root = _real_root()
    try:
        if as_root:
            give_to_nobody(scratch_root)
        enter_new_root(scratch_root, [*keeps, os.path.dirname(setpriv)], hides, memory_total)
        problems = make_read_only(scratch_root)
    except OSError as exc:
        _fail(f"cannot set up the build's root: {exc.filename}: {exc.strerror}")
    if problems:
        _fail("cannot make the filesystem read-only: " + "; ".join(problems))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    hard_data = resource.getrlimit(resource.RLIMIT_DATA)[1]
    memory = memory_total if hard_data == resource.RLIM_INFINITY else min(memory_total, hard_data)
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    drop: tuple[str, ...] = DROP_ALL
    if as_root:
        # Counted per user: as `nobody` this bounds a fork bomb (threads count too). Never
        # above the hard limit the grader was given (raising it needs CAP_SYS_RESOURCE).
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        cap = PROCESS_LIMIT if hard == resource.RLIM_INFINITY else min(PROCESS_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))
        drop = AS_NOBODY
    os.chdir(workdir)
    try:
        os.execv(setpriv, [setpriv, *drop, "--", *command])
    except OSError as exc:
        _fail(f"cannot start the build through {setpriv}: {exc.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
