"""Build a case on a stage: a copy of its folder, so that a failed build leaves the case as
it was, and a build's change is exactly the stage's files whose bytes the case lacks —
copied back, or with `check` only listed (what `--check` prints; CI fails on any).

Only files the build itself wrote on the stage are its change: one it left as it was copied
is never written back, whatever the folder holds now. Each is written back whole (replaced,
not written into) and never through a link. A build that makes some files from scratch
names them `fresh`: they are removed from the
stage first, so one the build no longer makes is a change too (and a build deletes it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from lattice_desktop.errors import ManifestProblems, UserError

NOT_COPIED = ("__pycache__", ".zig-cache", "zig-cache", "*.pyc")
T = TypeVar("T")


def on_stage(
    folder: Path, build: Callable[[Path], T], *, check: bool, fresh: Sequence[str] = ()
) -> tuple[T, tuple[str, ...]]:
    """Run `build` on a copy of `folder`; return its result and the paths (relative to the
    folder) that differ, which are written into the folder unless `check`."""
    folder = folder.resolve()
    with tempfile.TemporaryDirectory(prefix="case-build-") as tmp:
        stage = Path(tmp) / folder.name
        shutil.copytree(folder, stage, symlinks=True, ignore=_not_copied)
        for rel in fresh:
            made = stage / rel
            if made.is_dir():
                shutil.rmtree(made)
            else:
                made.unlink(missing_ok=True)
        copied = _digests(stage)
        try:
            result = build(stage)
        except UserError as exc:
            raise _relocated(exc, stage, folder) from None
        changed = _differences(stage, folder, copied) + _gone(stage, folder, fresh)
        if not check:
            _write_back(stage, folder, changed)
    return result, tuple(sorted(changed))


def _not_copied(parent: str, names: list[str]) -> set[str]:
    """Caches, and every link: the stage never reads through a link of the case folder, nor
    does a build on it write through one (a kit path that needs one is then missing)."""
    skipped = shutil.ignore_patterns(*NOT_COPIED)(parent, names)
    return skipped | {name for name in names if os.path.islink(os.path.join(parent, name))}


def _digests(stage: Path) -> dict[str, bytes]:
    """Each regular file of the stage (as copied, before the build) by its SHA-256."""
    return {
        str(path.relative_to(stage)): hashlib.sha256(path.read_bytes()).digest()
        for path in sorted(stage.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def _write_back(stage: Path, folder: Path, changed: list[str]) -> None:
    """Write the build's files into the case folder: each replaced whole (a file another
    program holds open keeps its own bytes), never through a link; a link on the way is
    refused before anything is written."""
    for rel in changed:
        for parent in Path(rel).parents:
            at = folder / parent
            if str(parent) != "." and at.is_symlink():
                why = "the build writes only inside the case folder; nothing was written"
                raise UserError(f"{at} is a symbolic link: {why}")
    for rel in changed:
        source, target = stage / rel, folder / rel
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.case-build-{os.getpid()}")
            shutil.copyfile(source, partial)
            partial.replace(target)
        else:
            target.unlink()


def _copied(rel: Path) -> bool:
    return not any(part in NOT_COPIED or part.endswith(".pyc") for part in rel.parts)


def _differences(stage: Path, folder: Path, copied: dict[str, bytes]) -> list[str]:
    """The files the build made or changed on the stage (`copied`: what it started from)
    whose bytes the case folder does not hold yet. A file the build left alone is never its
    change, even when the folder's copy changed meanwhile (`case build . > log.txt`)."""
    out = []
    for path in sorted(stage.rglob("*")):
        rel = path.relative_to(stage)
        if path.is_file() and not path.is_symlink() and _copied(rel):
            if copied.get(str(rel)) == hashlib.sha256(path.read_bytes()).digest():
                continue
            target = folder / rel
            if target.is_symlink() or not target.is_file() or target.read_bytes() != path.read_bytes():
                out.append(str(rel))
    return out


def _gone(stage: Path, folder: Path, fresh: Sequence[str]) -> list[str]:
    """The case's files among those made fresh that the build no longer makes."""
    out = []
    for name in fresh:
        root = folder / name
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            rel = path.relative_to(folder)
            if path.is_file() and _copied(rel) and not (stage / rel).is_file():
                out.append(str(rel))
    return out


def _relocated(exc: UserError, stage: Path, folder: Path) -> UserError:
    """The error with the stage's paths named as the case's own."""
    where = exc.location
    if where.file is None or isinstance(exc, ManifestProblems):  # several locations: all in its text
        return UserError(str(exc).replace(str(stage), str(folder)))
    message = exc.message.replace(str(stage), str(folder))
    return UserError(message, replace(where, file=where.file.replace(str(stage), str(folder))))
