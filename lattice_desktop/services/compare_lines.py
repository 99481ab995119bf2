"""The source lines behind one function's change between two runs: each line's fuel in the
function in each run, matched by file and line, or through `line_match` where the two
runs' copies of a file differ (a line that moved is still the same line; one that changed
is a line of one run only, 0 in the other). Every unit of the function's self fuel is on
exactly one line, so the lines' changes add up to the function's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lattice_desktop.profile.line_match import matched_lines
from lattice_desktop.profile.model import Profile

Sources = Callable[[str], tuple[str | None, str | None]]
"""A file's text in run A and in run B (None where it is not in the submission's folder)."""


@dataclass(frozen=True)
class LineChange:
    """One source line's fuel inside one function in each run (0 where it burned none)."""

    file: str
    before_line: int | None  # the line in A's copy of the file; None: no line of A's matches
    after_line: int | None  # the line in B's copy; None: no line of B's matches
    before: int
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def place(self) -> str:
        """`engine.c:42`; `engine.c:40→42` for a line that moved; `engine.c:40 (A only)` for
        one the other version does not have; line 0 is code the line table gives no line."""
        a, b = self.before_line, self.after_line
        if a is None or b is None:
            return f"{self.file}:{a if b is None else b} ({'A' if b is None else 'B'} only)"
        return f"{self.file}:{b}" if a == b else f"{self.file}:{a}→{b}"


def line_changes(
    before: Profile, after: Profile, name: str, sources: Sources | None = None
) -> tuple[LineChange, ...]:
    """Function `name`'s lines whose fuel changed, most of the change first; empty unless
    both profiles carry lines and each side's lines add up to its self fuel (a run a trap
    cut short does not)."""
    if not (before.line_table and after.line_table):
        return ()
    ours, theirs = _fuel_per_line(before, name), _fuel_per_line(after, name)
    if ours is None or theirs is None:
        return ()
    pairs: dict[str, dict[int, int]] = {}
    for file in {f for f, _ in ours} | {f for f, _ in theirs}:
        texts = sources(file) if sources is not None else (None, None)
        a, b = texts
        pairs[file] = matched_lines(a, b) | {0: 0} if a is not None and b is not None and a != b else {}
    changes: list[LineChange] = []
    left = dict(theirs)
    for (file, line), fuel in ours.items():
        other = pairs[file].get(line) if pairs[file] else line
        after_fuel = left.pop((file, other), 0) if other is not None else 0
        changes.append(LineChange(file, line, other, fuel, after_fuel))
    back = {file: {b: a for a, b in lines.items()} for file, lines in pairs.items()}
    for (file, line), fuel in left.items():
        mine = back[file].get(line) if pairs[file] else line
        changes.append(LineChange(file, mine, line, 0, fuel))
    direction = 1 if sum(theirs.values()) >= sum(ours.values()) else -1
    changed = [c for c in changes if c.delta]
    changed.sort(key=lambda c: (-c.delta * direction, c.file, c.after_line or 0, c.before_line or 0))
    return tuple(changed)


def _fuel_per_line(profile: Profile, name: str) -> dict[tuple[str, int], int] | None:
    """(file, line) → fuel of the function of that name ({} where it did not run), or None
    when its lines do not add up to its self fuel."""
    found = next((f for f in profile.functions if f.name == name and f.calls), None)
    if found is None:
        return {}
    lines: dict[tuple[str, int], int] = {}
    for s in profile.lines_of(found.index):
        lines[(s.file, s.line)] = lines.get((s.file, s.line), 0) + s.fuel
    return lines if sum(lines.values()) == found.self_fuel else None


def no_lines_note(before: Profile, after: Profile, before_id: int, after_id: int) -> str:
    """Why a case's functions have no source lines ("" when both profiles have them)."""
    missing = [run for run, p in ((before_id, before), (after_id, after)) if not p.line_table]
    if not missing:
        return ""
    runs = " and ".join(f"run {run}" for run in missing)
    one = len(missing) == 1
    return (
        f"no source lines: {runs}'{'s' if one else ''} module{'' if one else 's'} "
        f"{'has' if one else 'have'} no DWARF line table (build with -g to see lines)"
    )
