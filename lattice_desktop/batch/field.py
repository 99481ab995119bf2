"""The submissions of a batch: folders given on the command line (or picked in the app),
where a folder holding submission folders stands for all of them. A folder that cannot be
read is a located problem; the rest of the batch goes on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.manifest.submission import MANIFEST_NAME, Submission, load_submission


@dataclass(frozen=True)
class Problem:
    """A submission the batch could not grade, with where and why."""

    path: str
    message: str

    def describe(self) -> str:
        return self.message if self.message.startswith(self.path) else f"{self.path}: {self.message}"


def find_submissions(paths: Iterable[str | Path]) -> tuple[list[Submission], list[Problem]]:
    """Every submission under `paths`, in a stable order, and what could not be read."""
    found: list[Submission] = []
    problems: list[Problem] = []
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_file() or (path / MANIFEST_NAME).is_file():
            folders = [path]
        elif path.is_dir():
            folders = sorted(p for p in path.iterdir() if (p / MANIFEST_NAME).is_file())
            if not folders:
                problems.append(
                    Problem(str(path), f"holds no submission folder (none has a {MANIFEST_NAME})")
                )
        else:
            problems.append(Problem(str(path), "no such file or folder"))
            continue
        for folder in folders:
            try:
                submission = load_submission(folder)
            except UserError as exc:
                problems.append(Problem(str(folder), str(exc)))
                continue
            if submission.folder not in seen:
                seen.add(submission.folder)
                found.append(submission)
    return found, problems
