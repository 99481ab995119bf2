"""Hypothesis strategies that damage a valid text file the way people and attackers do."""

from __future__ import annotations

from hypothesis import strategies as st

NASTY_TOKENS = [
    "",
    " ",
    "=",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    '"',
    "'",
    '"""',
    "'''",
    "#",
    "\\",
    "\t",
    "\r",
    "\x00",
    "\x7f",
    "é",
    "\u202e",
    "\ufeff",
    "-1",
    "0",
    "1e309",
    "nan",
    "inf",
    "-inf",
    "18446744073709551616",
    "99999999999999999999999",
    "true",
    "null",
    "1_000",
    "0x10",
    "[1, 2",
    "{}",
    "{a = 1}",
    "[[case]]",
    "[meta]",
    "a.b.c = 1",
    "grid",
    "lattice 1",
    "size 4096 4096",
    "ticks 1000000000",
    "snapshot 1",
    '{"type": "run_start"}',
    "[]",
]

token = st.one_of(st.sampled_from(NASTY_TOKENS), st.text(max_size=12))


@st.composite
def damaged(draw, text: str) -> str:
    """`text` with a few lines deleted, duplicated, swapped, cut, or spliced with junk."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [draw(token)]
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "junk", "splice", "cut", "swap", "insert"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "junk":
            lines[i] = draw(token) + "\n"
        elif op == "splice":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(token) + lines[i][at:]
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, draw(st.sampled_from(NASTY_TOKENS)) + "\n")
    return "".join(lines)
