"""Open a file a build produced the way the build's own user would, never following a link.

After a build the grader reads the module outside the jail, with the grader's rights. A
build that swaps a folder on the module's path for a symbolic link (`mv src s0 && ln -s
/elsewhere src`) would otherwise make the grader read any host file as the module. So the
path is walked one component at a time from a descriptor of the scratch root, each folder
opened `O_PATH | O_NOFOLLOW | O_DIRECTORY` relative to its parent and the file `O_RDONLY |
O_NOFOLLOW | O_NONBLOCK`, with the type checked on the descriptor itself (no name is looked
up twice). Where the build ran as another user (`nobody`), each step must also be one that
user could take: search permission on every folder, read permission on the file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import PurePosixPath


class NotBeneath(Exception):
    """The path cannot be opened beneath the root as asked; the message says why."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing  # nothing at all at that path (no link, no other file)


def _allowed(info: os.stat_result, uid: int, bit_user: int, bit_group: int, bit_other: int) -> bool:
    """Whether `uid` (whose primary group has the same number) has the permission."""
    if uid == 0:
        return True
    if info.st_uid == uid:
        return bool(info.st_mode & bit_user)
    if info.st_gid == uid:
        return bool(info.st_mode & bit_group)
    return bool(info.st_mode & bit_other)


def _parts(relative: str) -> list[str]:
    path = PurePosixPath(relative)
    if path.is_absolute():
        raise NotBeneath(f"{relative} is an absolute path")
    parts = [p for p in path.parts if p != "."]
    if not parts or ".." in parts:
        raise NotBeneath(f"{relative} must name a file inside the folder, without '..'")
    return parts


def open_beneath(root_fd: int, relative: str, *, as_uid: int | None = None) -> int:
    """A read-only descriptor of the regular file `relative` beneath `root_fd`.

    Raises `NotBeneath` naming the component at fault: a link, a missing folder, a special
    file, or (with `as_uid`) a folder or file that user could not have entered or read.
    """
    *folders, name = _parts(relative)
    opened: list[int] = []
    here = root_fd
    walked = ""
    try:
        for folder in folders:
            walked = f"{walked}{folder}/"
            try:
                here = os.open(folder, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY, dir_fd=here)
            except OSError as exc:
                raise _why(walked.rstrip("/"), exc, here) from None
            opened.append(here)
            info = os.fstat(here)
            if as_uid is not None and not _allowed(info, as_uid, stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH):
                raise NotBeneath(f"the build's user cannot enter {walked.rstrip('/')}")
        target = walked + name
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=here)
        except OSError as exc:
            raise _why(target, exc, here) from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise NotBeneath(f"{target} is not a regular file (a FIFO, device or other special file)")
        if as_uid is not None and not _allowed(info, as_uid, stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH):
            os.close(fd)
            raise NotBeneath(f"the build's user cannot read {target} (mode {stat.filemode(info.st_mode)})")
        return fd
    finally:
        for fd_open in opened:
            os.close(fd_open)


def _why(component: str, exc: OSError, parent_fd: int) -> NotBeneath:
    """The failed step in words: a link is named as such, with where it points."""
    name = component.rsplit("/", 1)[-1]
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        try:
            target = os.readlink(name, dir_fd=parent_fd)
        except OSError:
            target = None
        if target is not None:
            return NotBeneath(f"{component} is a symbolic link (to {target}); links are not followed")
        return NotBeneath(f"{component} is not a folder")
    if exc.errno == errno.ENOENT:
        return NotBeneath(f"{component} does not exist", missing=True)
    return NotBeneath(f"{component} cannot be opened: {exc.strerror}")
