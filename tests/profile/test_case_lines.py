"""A case's lines across functions (the Profile tab's Lines view, without Qt): one row per
file:line summed over the functions it is in, hottest first, adding up to the case; against a
compared run, its fuel on the same line where both copies share the line's text, and the lines
only it spends fuel on, so the figures add up to both runs' totals."""

from __future__ import annotations

from collections import Counter

from lattice_desktop.profile.case_lines import case_lines, compared_lines
from lattice_desktop.profile.model import FunctionStats, LineStats, Profile
from tests.profile.lines_profile import line_of, profile_with_lines
from tests.profile.test_source_lines import COUNTED, FILL


def _profile(lines: dict[tuple[str, str, int], int], *, line_table: bool = True) -> Profile:
    """A returned run whose functions' self fuel is the fuel of their lines."""
    names = sorted({name for name, _, _ in lines})
    fuel = Counter()
    for (name, _, _), amount in lines.items():
        fuel[name] += amount
    functions = tuple(FunctionStats(i, n, 1, fuel[n], fuel[n]) for i, n in enumerate(names))
    stats = tuple(LineStats(names.index(n), file, line, amount) for (n, file, line), amount in lines.items())
    total = sum(fuel.values())
    return Profile(
        "sha", "big", "hash", total, functions, (), total, None, "returned",
        line_table=line_table, lines=stats if line_table else (),
    )  # fmt: skip


def test_the_hottest_row_is_the_hottest_line_and_the_rows_add_up_to_the_case(tmp_path):
    profile, counted = profile_with_lines(tmp_path, COUNTED)
    rows = case_lines(profile)
    per_line = Counter()
    for s in profile.lines:
        per_line[(s.file, s.line)] += s.fuel
    hottest = max(per_line, key=lambda place: per_line[place])
    assert (rows[0].file, rows[0].line) == hottest == ("t.wat", line_of(COUNTED, ";; fill"))
    assert rows[0].fuel == 1 + FILL
    assert sum(r.fuel for r in rows) == profile.total == counted
    assert [r.fuel for r in rows] == sorted((r.fuel for r in rows), reverse=True)
    assert all(r.fuel == sum(s.fuel for s in r.functions) for r in rows)
    assert len({(r.file, r.line) for r in rows}) == len(rows)


def test_a_line_inlined_into_several_functions_is_one_row_that_says_how_it_splits():
    profile = _profile({("tick", "e.c", 76): 50, ("decide", "e.c", 76): 20, ("decide", "e.c", 110): 60})
    rows = case_lines(profile)
    assert [(r.place, r.fuel) for r in rows] == [("e.c:76", 70), ("e.c:110", 60)]
    assert [(s.name, s.fuel) for s in rows[0].functions] == [("tick", 50), ("decide", 20)]


OURS = "a\nb\nc\nd\n"
THEIRS = "x\na\nb\nC\nd\n"  # a line added at the top, c changed


def test_a_compared_run_is_matched_where_the_text_is_the_same_line():
    ours = _profile({("f", "t.c", 1): 10, ("g", "t.c", 3): 30, ("f", "t.c", 4): 5})
    theirs = _profile({("f", "t.c", 2): 7, ("f", "t.c", 3): 9, ("g", "t.c", 4): 40, ("f", "t.c", 5): 5})
    rows = compared_lines(ours, theirs, {"t.c": OURS}, {"t.c": THEIRS})
    shown = [(r.place, r.fuel, r.other_line, r.other, r.delta) for r in rows]
    assert shown == [
        ("t.c:3", 30, None, None, None),  # its text changed: no compared figure
        ("t.c:1", 10, 2, 7, 3),  # moved down a line in their copy
        ("t.c:4", 5, 5, 5, 0),
        ("✚ t.c:4", 0, 4, 40, -40),  # their changed line: only their copy has it
        ("t.c:2", 0, 3, 9, -9),  # our line, where only they spend fuel
    ]
    assert sum(r.fuel for r in rows) == ours.total
    assert sum(r.other or 0 for r in rows) == theirs.total


def test_without_both_copies_or_the_compared_runs_lines_nothing_is_claimed():
    ours = _profile({("f", "t.c", 1): 10, ("f", "", 0): 3})
    theirs = _profile({("f", "t.c", 1): 8, ("f", "", 0): 2})
    rows = compared_lines(ours, theirs, {"t.c": OURS}, {"t.c": None})
    assert [(r.place, r.other) for r in rows] == [("t.c:1", None), ("(no line)", 2)]
    no_lines = _profile({("f", "t.c", 1): 8}, line_table=False)
    rows = compared_lines(ours, no_lines, {"t.c": OURS}, {"t.c": OURS})
    assert [(r.place, r.other) for r in rows] == [("t.c:1", None), ("(no line)", None)]


def test_a_run_compared_with_itself_differs_on_no_line(tmp_path):
    profile, _ = profile_with_lines(tmp_path, COUNTED)
    rows = compared_lines(profile, profile, {"t.wat": COUNTED}, {"t.wat": COUNTED})
    assert rows and all(r.other == r.fuel and r.delta == 0 for r in rows)
    assert [(r.file, r.line) for r in rows] == [(r.file, r.line) for r in case_lines(profile)]
