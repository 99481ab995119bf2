"""kit.toml: how `case build` builds a case and which slips `case check` proves it with.

    [reference]    submission = "submissions/merge_sort"   # its answers are the expected ones
    [inputs]       generator = "generate.py"               # optional; run before each build
    [calibration]  headroom, reading, step, slack           # the rule of casebuild/calibrate.py
                   reading_sample = "submissions/quadratic" # optional: the reading engine
    [[slip]]       submission = "slips/counts_ties", breaks = "ties"
    [mutants], [[mutant]]                                   # `case mutants`: mutants/subject.py

It sits beside case.toml and is optional: a case without one grades and checks as before.
Its paths are relative to its folder; every mistake is reported with its file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.casebuild.calibrate import Rule
from lattice_desktop.manifest.toml_source import Table, TomlDocument

KIT_NAME = "kit.toml"


@dataclass(frozen=True)
class Slip:
    """A small wrong submission and the behaviour it breaks: a smoke test's name, or the
    behaviour text its smoke tests share."""

    folder: Path
    breaks: str
    line: int  # where kit.toml declares it, for located messages


@dataclass(frozen=True)
class Kit:
    path: Path
    reference: Path
    generator: Path | None
    rule: Rule
    slips: tuple[Slip, ...]
    reading_sample: Path | None = None  # the reading engine, when not the reference

    @property
    def folder(self) -> Path:
        return self.path.parent


def kit_path(case_path: Path) -> Path:
    """Where a case's kit.toml would be (beside case.toml)."""
    return (case_path if case_path.is_dir() else case_path.parent) / KIT_NAME


def load_kit(case_path: Path) -> Kit | None:
    """The kit beside a case manifest (or in a case folder), or None when it ships none."""
    path = kit_path(case_path)
    return read_kit(path) if path.is_file() else None


def read_kit(path: Path) -> Kit:
    doc = TomlDocument.load(path)
    doc.check_top_level(("reference", "inputs", "calibration", "slip", "mutants", "mutant"))
    reference = doc.table("reference")
    reference.check_keys(("submission",))
    inputs = doc.table("inputs", required=False)
    inputs.check_keys(("generator",))
    generator = inputs.file("generator", None)
    calibration = doc.table("calibration", required=False)
    return Kit(
        path=path.resolve(),
        reference=_folder(reference, "submission"),
        generator=Path(generator) if generator else None,
        rule=_rule(calibration),
        slips=tuple(_slip(t) for t in doc.tables("slip")),
        reading_sample=_folder(calibration, "reading_sample")
        if "reading_sample" in calibration.data
        else None,
    )


def _folder(table: Table, key: str) -> Path:
    """A submission folder named relative to kit.toml, which must hold a submission.toml."""
    value = table.string(key)
    folder = (table.doc.path.parent / value).resolve()
    if not (folder / "submission.toml").is_file():
        raise table.error(key, f"no submission.toml in {value} (looked in {folder})")
    return folder


def _rule(table: Table) -> Rule:
    table.check_keys(("headroom", "reading", "step", "slack", "reading_sample"))
    default = Rule()
    return Rule(
        headroom=table.number("headroom", default.headroom, minimum=1.0, maximum=1000.0),
        reading=table.number("reading", default.reading, minimum=1.0, maximum=1_000_000.0),
        step=table.number("step", default.step, minimum=0.0, maximum=10.0),
        slack=table.number("slack", default.slack, minimum=1.0, maximum=2.0),
    )


def _slip(table: Table) -> Slip:
    table.check_keys(("submission", "breaks"))
    return Slip(
        folder=_folder(table, "submission"),
        breaks=table.string("breaks"),
        line=table.doc.line_of(table.path),
    )
