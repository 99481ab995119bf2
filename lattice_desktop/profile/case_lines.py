"""A case's source lines across its functions: each file:line's fuel summed over every
function it was compiled into (a helper inlined into four functions is one line, not four),
hottest first; and, against a compared run, that run's fuel on the same line wherever both
runs' copies of the file say the same thing there (`line_match`), so the lines' differences
make up the gap between the runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lattice_desktop.profile.line_match import matched_lines
from lattice_desktop.profile.model import Profile

Texts = Mapping[str, str | None]
"""A run's source files by the name its line table gives them (None: not in its folder)."""


@dataclass(frozen=True)
class LineShare:
    """The fuel one function (by its index in its run's module) burned on a line."""

    function: int
    name: str
    fuel: int


@dataclass(frozen=True)
class CaseLine:
    """One source line: this run's fuel on it over all its functions, and how that splits.

    With a compared run, `other` is that run's fuel on the same line (`other_line` in its copy
    of the file), None where that cannot be said: the line's text changed, or a copy of the
    file is missing. `line` is None for a line only the compared run's copy has."""

    file: str
    line: int | None
    fuel: int
    functions: tuple[LineShare, ...]
    other_line: int | None = None
    other: int | None = None
    other_functions: tuple[LineShare, ...] = ()

    @property
    def delta(self) -> int | None:
        """This run's fuel less the compared run's, where the compared figure is known."""
        return None if self.other is None else self.fuel - self.other

    @property
    def place(self) -> str:
        """`engine.c:110`; `✚ engine.c:95` for a line only the compared run's copy has (95 in
        that copy); `(no line)` for code the line table places nowhere."""
        if self.line is None:
            return f"✚ {self.file}:{self.other_line}"
        return f"{self.file}:{self.line}" if self.file or self.line else "(no line)"


def case_lines(profile: Profile) -> list[CaseLine]:
    """Every line the run spent fuel on, summed over its functions, most fuel first."""
    rows = [
        CaseLine(file, line, sum(s.fuel for s in shares), shares)
        for (file, line), shares in _per_line(profile).items()
    ]
    return sorted(rows, key=_hottest_first)


def compared_lines(profile: Profile, other: Profile, ours: Texts, theirs: Texts) -> list[CaseLine]:
    """`case_lines(profile)` with `other`'s fuel on each line whose text both copies of its
    file share, then the lines `other` spends fuel on where `profile` spends none (at our
    line where our copy has it, else as a line of the compared run's copy). Lines of a file
    one side's copy is missing from are left uncompared (their `other` None)."""
    mine, theirs_lines = _per_line(profile), _per_line(other) if other.line_table else {}
    pairs = {
        file: _pairs(ours.get(file), theirs.get(file))
        for file in {f for f, _ in mine} | {f for f, _ in theirs_lines}
    }
    rows: list[CaseLine] = []
    claimed: set[tuple[str, int]] = set()
    for (file, line), shares in mine.items():
        matched = _matched(pairs[file], line) if other.line_table else None
        if matched is None:
            rows.append(CaseLine(file, line, sum(s.fuel for s in shares), shares))
            continue
        claimed.add((file, matched))
        their = theirs_lines.get((file, matched), ())
        fuel = sum(s.fuel for s in shares)
        rows.append(CaseLine(file, line, fuel, shares, matched, sum(s.fuel for s in their), their))
    back = {file: {b: a for a, b in found.items()} for file, found in pairs.items() if found is not None}
    for (file, line), their in theirs_lines.items():
        if (file, line) in claimed or (pairs[file] is None and line):
            continue
        ours_line = 0 if line == 0 else back[file].get(line)
        rows.append(CaseLine(file, ours_line, 0, (), line, sum(s.fuel for s in their), their))
    return sorted(rows, key=_hottest_first)


def _per_line(profile: Profile) -> dict[tuple[str, int], tuple[LineShare, ...]]:
    """(file, line) → the functions that spent fuel on it, most first."""
    names = {f.index: f.name for f in profile.functions}
    found: dict[tuple[str, int], list[LineShare]] = {}
    for s in profile.lines:
        if s.fuel:
            share = LineShare(s.function, names.get(s.function, f"func[{s.function}]"), s.fuel)
            found.setdefault((s.file, s.line), []).append(share)
    return {
        place: tuple(sorted(shares, key=lambda s: (-s.fuel, s.name, s.function)))
        for place, shares in found.items()
    }


def _pairs(ours: str | None, theirs: str | None) -> dict[int, int] | None:
    """Our line → theirs for one file, or None when a copy is missing (nothing can be said)."""
    if ours is None or theirs is None:
        return None
    return matched_lines(ours, theirs)


def _matched(pairs: dict[int, int] | None, line: int) -> int | None:
    """The compared copy's line for our `line`; line 0 (no line) is the same everywhere."""
    if line == 0:
        return 0
    return pairs.get(line) if pairs is not None else None


def _hottest_first(row: CaseLine) -> tuple[int, int, str, int, int]:
    return (-row.fuel, -(row.other or 0), row.file, row.line or 0, row.other_line or 0)
