"""A line table's source file, read from the submission's folder as the module is.

A DWARF file name is the module's text, so the submitter chose it, and the submitter owns
the folders it leads through and may swap any of them for a link while the Source or Lines
view reads. So a name is read only through `manifest/no_follow.py`: the submission's
folder opened from / without following a link (its stored path is the resolved one), then
each component opened relative to the one before, a link inside the folder walked from the
descriptors already held and one out of it refused. A name the folder does not hold, or
one that cannot be read so, gives a `SourceRefused` that says which part is at fault.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path, PurePosixPath

from lattice_desktop.manifest.no_follow import NotBeneath, open_resolved_folder, read_beneath

MAX_SOURCE = 4 * 1024 * 1024  # bytes of one source file the Source view reads


class SourceRefused(Exception):
    """A source file that is not read; the message names the file and why."""


def relative_name(root: Path, name: str) -> str:
    """`name` (relative to the folder, or absolute under it) as a path inside `root`, or
    `SourceRefused` where it leads elsewhere. Only the text is compared: the walk decides."""
    if not name or "\0" in name:
        raise SourceRefused(f"{name!r} is not a file name")
    path = PurePosixPath(posixpath.normpath(name))
    if path.is_absolute():
        try:
            path = path.relative_to(PurePosixPath(root))
        except ValueError:
            raise SourceRefused(f"{name} is outside the submission folder {root}") from None
    if not path.parts or path.parts[0] == ".." or str(path) == ".":
        raise SourceRefused(f"{name} is outside the submission folder {root}")
    return str(path)


def read_source(root: Path, name: str, *, limit: int = MAX_SOURCE) -> bytes:
    """The bytes of the source file `name` beneath the folder `root`, read once through a
    descriptor reached without following a link out of the folder."""
    relative = relative_name(root, name)
    try:
        folder_fd = open_resolved_folder(root)
    except NotBeneath as exc:
        raise SourceRefused(f"{name}: {exc}") from None
    try:
        within = "the submission folder"
        return read_beneath(folder_fd, relative, limit=limit, links_inside=True, within=within)
    except NotBeneath as exc:
        raise SourceRefused(f"{name} in {root}: {exc}") from None
    finally:
        os.close(folder_fd)


def source_text(root: str | None, name: str) -> str | None:
    """A source file's text for the Source and Lines views, or None where it is not in
    the folder, cannot be read beneath it, or is larger than MAX_SOURCE bytes."""
    if root is None:
        return None
    try:
        return read_source(Path(root), name).decode("utf-8", "replace")
    except SourceRefused:
        return None


def source_path(root: str | None, name: str) -> str:
    """Where a line table's file is, for a profiler (KCachegrind) to open: its path in the
    submission's folder when that folder holds it readably, else the name as given."""
    if root is None:
        return name
    try:
        relative = relative_name(Path(root), name)
        read_source(Path(root), name)
    except SourceRefused:
        return name
    return str(Path(root) / relative)
