"""Errors a user can cause and act on, each with the place it comes from.

Anything that is *not* a `UserError` is a bug in Lattice Desktop and must reach the
user with its traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Where a user error was found: a file, a line in it and the key at fault."""

    file: str | None = None
    line: int | None = None
    key: str | None = None

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.key:
            parts.append(self.key)
        return ": ".join(parts)


class UserError(Exception):
    """A mistake in something the user gave us: a manifest, a scenario, a trace, a flag."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location or Location()

    def __str__(self) -> str:
        where = str(self.location)
        return f"{where}: {self.message}" if where else self.message


class ManifestError(UserError):
    """A case or submission manifest that cannot be used as written."""


class ManifestProblems(ManifestError):
    """Every mistake found in one manifest, listed together (each with its own location);
    the first stands for them all where one location is wanted."""

    def __init__(self, problems: list[ManifestError]) -> None:
        first = problems[0]
        super().__init__(first.message, first.location)
        self.problems = tuple(problems)

    def __str__(self) -> str:
        if len(self.problems) == 1:
            return str(self.problems[0])
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        return f"{len(self.problems)} problems in {self.location.file or 'the manifest'}:\n{lines}"


class StorageError(UserError):
    """The database cannot be opened or written (locked, read-only, too new)."""


class Cancelled(Exception):
    """Raised inside long work when the user asked it to stop."""
