"""The build jail's set-up: make every mount read-only except the scratch folder.

    unshare [--user --map-root-user] --mount --propagation private --net --pid --fork \
        --kill-child --mount-proc -- python -I build_jail.py SCRATCH_ROOT WORKDIR -- CMD...

`unshare` gives it a private mount namespace, no network and its own PID namespace with
a fresh /proc (the build sees only its own processes; when the build's first process
ends, or the grader kills `unshare`, the kernel kills every process in it). This script
runs *as a file* with `python -I`, so nothing in the submission's folder can shadow it.
It bind-mounts SCRATCH_ROOT onto itself and remounts every other mount read-only
(keeping each mount's other flags), then execs the command through `setpriv`:

* started by the machine's root, the build becomes `nobody` with one capability,
  CAP_DAC_READ_SEARCH, so it can read toolchains installed under /root but write nothing
  outside the scratch folder (which is handed to `nobody`); a build that stayed root
  would pass every permission check on /proc/sys and the raw disks;
* started by anyone else (inside a user namespace), it keeps the user's identity.

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
PROCESS_LIMIT = 512  # processes and threads of `nobody`

DROP_ALL = ("--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs")
AS_NOBODY = (
    f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
    "--inh-caps=-all,+dac_read_search", "--ambient-caps=+dac_read_search",
    "--bounding-set=-all,+dac_read_search", "--no-new-privs",
    "--pdeathsig=KILL",  # changing user clears the parent-death signal: set it again after
)

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(message: str) -> NoReturn:
    print(f"lattice build jail: {message}", file=sys.stderr, flush=True)
    sys.exit(SETUP_FAILED)


def _mount(source: str | None, target: str, flags: int) -> None:
    if _libc.mount(
        None if source is None else source.encode(), target.encode(), None, ctypes.c_ulong(flags), None
    ) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), target)


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
    """Bind the scratch folder writable, then remount everything else read-only."""
    _mount(scratch_root, scratch_root, MS_BIND | MS_REC)
    problems = []
    for point, options in mounts():
        if _inside(point, scratch_root) or "ro" in options:
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
    still_writable = [p for p, o in mounts() if "rw" in o and not _inside(p, scratch_root)]
    if still_writable:
        problems.append("still writable: " + ", ".join(still_writable))
    return problems


def give_to_nobody(scratch_root: str) -> None:
    """Hand the scratch tree to `nobody`, never following a link out of it."""
    for folder, dirs, files in os.walk(scratch_root):
        os.chown(folder, NOBODY, NOBODY, follow_symlinks=False)
        for name in dirs + files:
            os.chown(os.path.join(folder, name), NOBODY, NOBODY, follow_symlinks=False)


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        _fail("usage: build_jail.py SCRATCH_ROOT WORKDIR -- COMMAND...")
    scratch_root, workdir, command = os.path.realpath(argv[0]), argv[1], argv[3:]
    # Die with the grader: the signal survives exec into stage two.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        _fail("the grader is gone")
    try:
        problems = make_read_only(scratch_root)
    except OSError as exc:
        _fail(f"cannot bind the scratch folder: {exc.strerror}")
    if problems:
        _fail("cannot make the filesystem read-only: " + "; ".join(problems))
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        _fail("util-linux `setpriv` is not installed")
    drop: tuple[str, ...] = DROP_ALL
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if _real_root():
        try:
            give_to_nobody(scratch_root)
        except OSError as exc:
            _fail(f"cannot hand the scratch folder over: {exc.strerror}")
        # Counted per user: as `nobody` this bounds a fork bomb (threads count too).
        resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))
        drop = AS_NOBODY
    os.chdir(workdir)
    try:
        os.execv(setpriv, [setpriv, *drop, "--", *command])
    except OSError as exc:
        _fail(f"cannot start the build through {setpriv}: {exc.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
