"""The submission manifest: who made it, what it targets, how it is built.

[submission]  model, case, expected_verdict (for sample submissions)
[build]       commands (run only when the user allows it), module
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.manifest.toml_source import TomlDocument

MANIFEST_NAME = "submission.toml"
VERDICTS = ("correct", "over_ceiling", "incorrect")


@dataclass(frozen=True)
class Submission:
    folder: Path
    manifest_path: Path
    model: str
    case: str | None
    commands: tuple[str, ...]
    module: str
    expected_verdict: str | None = None

    @property
    def module_path(self) -> Path:
        return self.folder / self.module

    @property
    def name(self) -> str:
        return self.folder.name


def load_submission(path: str | Path) -> Submission:
    """Read a submission folder (or its submission.toml); errors name file, key and line."""
    path = Path(path)
    manifest = path / MANIFEST_NAME if path.is_dir() else path
    doc = TomlDocument.load(manifest)
    doc.check_top_level(("submission", "build"))
    info = doc.table("submission")
    info.check_keys(("model", "case", "expected_verdict"))
    build = doc.table("build")
    build.check_keys(("commands", "module"))
    module = build.string("module")
    if Path(module).is_absolute() or ".." in Path(module).parts:
        raise build.error("module", "must be a path inside the submission folder")
    return Submission(
        folder=manifest.parent.resolve(),
        manifest_path=manifest.resolve(),
        model=info.string("model"),
        case=info.string("case", None),
        commands=tuple(build.strings("commands", [])),
        module=module,
        expected_verdict=info.string("expected_verdict", None, choices=VERDICTS),
    )
