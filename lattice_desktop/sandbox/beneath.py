"""A build's files as the build's own user could reach them, never through a link.

Before a build the submission folder is copied into the scratch folder from the folder's
descriptor (`copy_folder`): links are copied as links and never followed, so a submitter who
swaps a folder for a link meanwhile copies only their own files. After the build the grader
reads the module outside the jail with the grader's rights, from a descriptor of the scratch
root taken before the build ran (`open_beneath`); where the build ran as another user
(`nobody`), each step must also be one that user could take: search permission on every
folder, read permission on the file. The walk itself is `manifest/no_follow.py`, the one
path by which the grader reads a submitter's file.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.manifest.no_follow import NotBeneath
from lattice_desktop.manifest.no_follow import open_beneath as _open_no_follow

__all__ = ["NotBeneath", "copy_folder", "open_beneath"]
_CHUNK = 1 << 20
MAX_COPY_DEPTH = 128  # folders within folders a copy enters (Python's stack is the bound)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _allowed(info: os.stat_result, uid: int, bit_user: int, bit_group: int, bit_other: int) -> bool:
    """Whether `uid` (whose primary group has the same number) has the permission."""
    if uid == 0:
        return True
    if info.st_uid == uid:
        return bool(info.st_mode & bit_user)
    if info.st_gid == uid:
        return bool(info.st_mode & bit_group)
    return bool(info.st_mode & bit_other)


def open_beneath(root_fd: int, relative: str, *, as_uid: int | None = None) -> int:
    """A read-only descriptor of the regular file `relative` beneath `root_fd`, no link
    followed; with `as_uid`, only where that user could have entered and read."""
    if as_uid is None:
        return _open_no_follow(root_fd, relative)
    uid = as_uid

    def as_the_builds_user(info: os.stat_result, walked: str, is_file: bool) -> None:
        if not is_file and not _allowed(info, uid, stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH):
            raise NotBeneath(f"the build's user cannot enter {walked}")
        if is_file and not _allowed(info, uid, stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH):
            raise NotBeneath(f"the build's user cannot read {walked} (mode {stat.filemode(info.st_mode)})")

    return _open_no_follow(root_fd, relative, check=as_the_builds_user)


def copy_folder(
    source_fd: int,
    target: Path,
    *,
    limit: int,
    log: list[str],
    links: bool = True,
    skip: frozenset[str] = frozenset(),
) -> None:
    """Copy the folder `source_fd` holds into the new folder `target`: links stay links
    (their text copied, never followed; without `links` they are left out, noted in `log`),
    special files are left out (noted), modes and times are kept; top-level names in `skip`
    are not copied. Raises OSError when a file cannot be copied (or changed kind while being
    copied) and `NotBeneath` past `limit` bytes in all or `MAX_COPY_DEPTH` folders."""
    _copy_into(source_fd, target, "", _Copy(_Budget(limit, limit), log, links, skip))


@dataclass
class _Budget:
    """Bytes a copy may still write, of the `limit` it started with."""

    left: int
    limit: int

    def spend(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise NotBeneath(f"the submission folder holds more than {self.limit:,} bytes; not copied")


@dataclass
class _Copy:
    """One copy's budget, log and choices."""

    budget: _Budget
    log: list[str]
    links: bool
    skip: frozenset[str]


def _copy_into(folder_fd: int, target: Path, shown: str, copy: _Copy) -> None:
    if shown.count("/") > MAX_COPY_DEPTH:
        raise NotBeneath(f"{shown[:200]}… is more than {MAX_COPY_DEPTH} folders deep; not copied")
    target.mkdir()
    with os.scandir(folder_fd) as entries:
        names = sorted(entry.name for entry in entries if shown or entry.name not in copy.skip)
    for name in names:
        info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode) and copy.links:
            os.symlink(os.readlink(name, dir_fd=folder_fd), target / name)
        elif stat.S_ISLNK(info.st_mode):
            copy.log.append(f"[not copied, a symbolic link: {shown}{name}]\n")
        elif stat.S_ISDIR(info.st_mode):
            child = os.open(name, _FOLDER, dir_fd=folder_fd)
            try:
                _copy_into(child, target / name, f"{shown}{name}/", copy)
                _keep_mode_and_times(target / name, os.fstat(child))
            finally:
                os.close(child)
        elif stat.S_ISREG(info.st_mode):
            _copy_file(folder_fd, name, target / name, copy.budget)
        else:
            copy.log.append(f"[not copied, not a regular file: {shown}{name}]\n")


def _copy_file(folder_fd: int, name: str, target: Path, budget: _Budget) -> None:
    """One regular file, opened without following a link and read through that descriptor."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{name} changed into a special file while being copied")
        with open(target, "xb") as out, os.fdopen(fd, "rb", closefd=False) as source:
            while chunk := source.read(_CHUNK):
                budget.spend(len(chunk))
                out.write(chunk)
    finally:
        os.close(fd)
    _keep_mode_and_times(target, info)


def _keep_mode_and_times(path: Path, info: os.stat_result) -> None:
    os.chmod(path, stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
