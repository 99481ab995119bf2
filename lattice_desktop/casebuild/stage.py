"""Build a case on a stage: a copy of its folder, so that a failed build leaves the case as
it was, and a build's change is exactly the stage's files whose bytes the case lacks —
copied back, or with `check` only listed (what `--check` prints; CI fails on any).

A build that makes some files from scratch names them `fresh`: they are removed from the
stage first, so one the build no longer makes is a change too (and a build deletes it).
"""

from __future__ import annotations

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
        # Links stay links (never read through): a case's code refuses one leading out of it.
        shutil.copytree(folder, stage, symlinks=True, ignore=shutil.ignore_patterns(*NOT_COPIED))
        for rel in fresh:
            made = stage / rel
            if made.is_dir():
                shutil.rmtree(made)
            else:
                made.unlink(missing_ok=True)
        try:
            result = build(stage)
        except UserError as exc:
            raise _relocated(exc, stage, folder) from None
        changed = _differences(stage, folder) + _gone(stage, folder, fresh)
        if not check:
            for rel in changed:
                source, target = stage / rel, folder / rel
                if source.is_file():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, target)
                else:
                    target.unlink()
    return result, tuple(sorted(changed))


def _copied(rel: Path) -> bool:
    return not any(part in NOT_COPIED or part.endswith(".pyc") for part in rel.parts)


def _differences(stage: Path, folder: Path) -> list[str]:
    """The stage's files whose bytes the case folder does not hold yet."""
    out = []
    for path in sorted(stage.rglob("*")):
        rel = path.relative_to(stage)
        if path.is_file() and not path.is_symlink() and _copied(rel):
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
