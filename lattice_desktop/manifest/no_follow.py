"""Read a submitter's file from a folder descriptor, one component at a time, never out of it.

A submitter owns the folders on the way to their files and may swap any of them for a link
at any moment; a grader that looks a path up twice (resolve, then open) can be made to read,
with its own rights, a file the submitter could never read. So the grader opens the
submission folder once (`open_folder`), remembers which folder it is (`FolderId`), and
reaches every file from that descriptor: each folder opened `O_PATH | O_NOFOLLOW |
O_DIRECTORY` relative to the one before, the file `O_RDONLY | O_NOFOLLOW | O_NONBLOCK`, its
type and size taken from the descriptor and its bytes read once through it.

A link met on the way is refused, or (`links_inside`) read and its target walked from the
descriptors already held: an absolute target, or one whose '..' would climb above the
folder, is refused, so a link can never lead out whatever is swapped meanwhile.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_LINKS = 40  # links followed in one walk, as the kernel allows (a loop ends here)
_FOLDER = os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC

# Called on each folder (is_file False) and on the file reached, with its fstat; raises
# NotBeneath to refuse the step (the build's user could not take it, for instance).
StepCheck = Callable[[os.stat_result, str, bool], None]


class NotBeneath(Exception):
    """The path cannot be read beneath the folder as asked; the message says why."""

    def __init__(self, message: str, *, missing: bool = False, size: int | None = None) -> None:
        super().__init__(message)
        self.missing = missing  # nothing at all at that path (no link, no other file)
        self.size = size  # set when the file is larger than the reader allows


@dataclass(frozen=True)
class FolderId:
    """Which folder a descriptor holds: a path later opened must still lead to this one."""

    device: int
    inode: int

    @classmethod
    def of(cls, fd: int) -> FolderId:
        info = os.fstat(fd)
        return cls(info.st_dev, info.st_ino)


def open_folder(path: Path, expected: FolderId | None = None) -> int:
    """A descriptor of the folder `path` (the grader's own path, followed as named); with
    `expected`, refused unless it is still the folder first read there."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        missing = exc.errno == errno.ENOENT
        raise NotBeneath(f"the folder {path} cannot be opened: {exc.strerror}", missing=missing) from None
    if expected is not None and FolderId.of(fd) != expected:
        os.close(fd)
        raise NotBeneath(
            f"the folder {path} changed while it was being graded (it is another folder now); "
            "nothing was read from it"
        )
    return fd


def opened_path(fd: int, fallback: Path) -> Path:
    """The path of the folder a descriptor holds (the one actually opened), where Linux says."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return fallback.resolve()


def read_beneath(
    root_fd: int,
    relative: str,
    *,
    limit: int,
    links_inside: bool = False,
    within: str = "the folder",
    check: StepCheck | None = None,
) -> bytes:
    """The bytes of the regular file `relative` beneath `root_fd`, read once through one
    descriptor; `NotBeneath` (with `size`) when it holds more than `limit` bytes."""
    fd = open_beneath(root_fd, relative, links_inside=links_inside, within=within, check=check)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise NotBeneath(f"{relative} is {size:,} bytes, over the {limit:,} allowed", size=size)
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotBeneath(f"{relative} grew past the {limit:,} bytes allowed while read", size=len(data))
    return data


def open_beneath(
    root_fd: int,
    relative: str,
    *,
    links_inside: bool = False,
    within: str = "the folder",
    check: StepCheck | None = None,
) -> int:
    """A read-only descriptor of the regular file `relative` beneath `root_fd`.

    Raises `NotBeneath` naming the component at fault: a link (out of `within`, or any link
    without `links_inside`), a missing folder, a special file, or a step `check` refuses.
    """
    todo = _parts(relative)
    held: list[int] = []  # the folders walked into, innermost last
    names: list[str] = []
    links = 0
    try:
        while todo:
            part = todo.pop(0)
            here = held[-1] if held else root_fd
            walked = "/".join([*names, part])
            if part == "..":  # only ever from a link's target
                if not held:
                    raise NotBeneath(f"{relative} is a link to a file outside {within} (through '..')")
                os.close(held.pop())
                names.pop()
                continue
            is_file = not todo
            try:
                fd = os.open(part, _FILE if is_file else _FOLDER, dir_fd=here)
            except OSError as exc:
                target = _link_target(part, here) if exc.errno in (errno.ELOOP, errno.ENOTDIR) else None
                if target is None:
                    raise _why(walked, exc) from None
                if not links_inside:
                    message = f"{walked} is a symbolic link (to {target}); links are not followed"
                    raise NotBeneath(message) from None
                links += 1
                if links > MAX_LINKS or target.startswith("/"):
                    raise _bad_link(walked, target, within, links) from None
                todo[:0] = [p for p in target.split("/") if p not in ("", ".")]
                continue
            info = os.fstat(fd)
            if not is_file:
                held.append(fd)
                names.append(part)
            elif not stat.S_ISREG(info.st_mode):
                os.close(fd)
                kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO, device or other special file"
                raise NotBeneath(f"{walked} is not a regular file ({kind})")
            if check is not None:
                _checked(check, info, walked, is_file, fd)
            if is_file:
                return fd
        raise NotBeneath(f"{relative} leads to a folder (through a link), not a file")
    finally:
        for fd_held in held:
            os.close(fd_held)


def _checked(check: StepCheck, info: os.stat_result, walked: str, is_file: bool, fd: int) -> None:
    """Run `check` on a step; a refused file's descriptor is closed (folders close later)."""
    try:
        check(info, walked, is_file)
    except NotBeneath:
        if is_file:
            os.close(fd)
        raise


def _parts(relative: str) -> list[str]:
    path = PurePosixPath(relative)
    if path.is_absolute():
        raise NotBeneath(f"{relative} is an absolute path")
    parts = [p for p in path.parts if p != "."]
    if not parts or ".." in parts:
        raise NotBeneath(f"{relative} must name a file inside the folder, without '..'")
    return parts


def _link_target(name: str, parent_fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=parent_fd)
    except OSError:
        return None


def _bad_link(walked: str, target: str, within: str, links: int) -> NotBeneath:
    if links > MAX_LINKS:
        return NotBeneath(f"{walked}: more than {MAX_LINKS} links on the way (a loop of links?)")
    return NotBeneath(f"{walked} is a link to a file outside {within} ({target})")


def _why(component: str, exc: OSError) -> NotBeneath:
    """The failed step in words."""
    if exc.errno == errno.ENOTDIR:
        return NotBeneath(f"{component} is not a folder")
    if exc.errno == errno.ENOENT:
        return NotBeneath(f"{component} does not exist", missing=True)
    return NotBeneath(f"{component} cannot be opened: {exc.strerror}")


def open_resolved_folder(path: Path) -> int:
    """A descriptor of the folder at the absolute, link-free path `path` (as `opened_path`
    gave it when the folder was first read), walked from / without following any link: a
    folder on the way swapped for a link since is refused, not followed."""
    if not path.is_absolute():
        raise NotBeneath(f"the folder {path} is not an absolute path")
    fd = os.open("/", _FOLDER)
    try:
        for part in path.parts[1:]:
            try:
                inner = os.open(part, _FOLDER, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _link_target(part, fd) is not None:
                    raise NotBeneath(f"the folder {path} changed: {part} on its path is a link now") from None
                raise NotBeneath(
                    f"the folder {path} cannot be opened: {exc.strerror}", missing=exc.errno == errno.ENOENT
                ) from None
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd
