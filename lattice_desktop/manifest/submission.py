"""The submission manifest: who made it, what it targets, how it is built.

[submission]  model, case, expected_verdict (for sample submissions)
[build]       commands (run only when the user allows it), module

The folder is the submitter's: the manifest is read from the folder's descriptor without
following a link out of it (no_follow.py), and the folder's identity is kept so that every
later read (the module, the build's copy) refuses a folder swapped meanwhile.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import Location, ManifestError
from lattice_desktop.manifest.no_follow import FolderId, NotBeneath, open_folder, opened_path, read_beneath
from lattice_desktop.manifest.toml_source import MAX_MANIFEST_BYTES, TomlDocument

MANIFEST_NAME = "submission.toml"
# build_failed: a sample whose build must fail (checked with `case check --build`).
VERDICTS = ("correct", "over_ceiling", "incorrect", "build_failed")


@dataclass(frozen=True)
class Submission:
    folder: Path
    manifest_path: Path
    model: str
    case: str | None
    commands: tuple[str, ...]
    module: str
    expected_verdict: str | None = None
    folder_id: FolderId | None = None  # the folder the manifest was read from

    @property
    def module_path(self) -> Path:
        return self.folder / self.module

    @property
    def name(self) -> str:
        return self.folder.name


def load_submission(path: str | Path) -> Submission:
    """Read a submission folder (or its submission.toml); errors name file, key and line."""
    path = Path(path)
    folder, name = (path, MANIFEST_NAME) if path.is_dir() else (path.parent, path.name)
    manifest = folder / name
    try:
        fd = open_folder(folder)
    except NotBeneath:
        raise ManifestError("file not found", Location(str(manifest))) from None
    try:
        identity = FolderId.of(fd)
        folder = opened_path(fd, folder)
        raw = read_beneath(fd, name, limit=MAX_MANIFEST_BYTES, links_inside=True, within="its folder")
    except NotBeneath as exc:
        raise _unreadable(exc, folder / name) from None
    finally:
        os.close(fd)
    doc = TomlDocument.decode(raw, folder / name)
    doc.check_top_level(("submission", "build"))
    info = doc.table("submission")
    info.check_keys(("model", "case", "expected_verdict"))
    build = doc.table("build")
    build.check_keys(("commands", "module"))
    module = build.string("module")
    if Path(module).is_absolute() or ".." in Path(module).parts:
        raise build.error("module", "must be a path inside the submission folder")
    return Submission(
        folder=folder,
        manifest_path=folder / name,
        model=info.string("model"),
        case=info.string("case", None),
        commands=tuple(build.strings("commands", [])),
        module=module,
        expected_verdict=info.string("expected_verdict", None, choices=VERDICTS),
        folder_id=identity,
    )


def _unreadable(exc: NotBeneath, manifest: Path) -> ManifestError:
    if exc.missing:
        return ManifestError("file not found", Location(str(manifest)))
    if exc.size is not None:
        return ManifestError(
            f"is {exc.size:,} bytes; manifests are limited to {MAX_MANIFEST_BYTES:,}", Location(str(manifest))
        )
    return ManifestError(f"cannot be read: {exc}", Location(str(manifest)))
