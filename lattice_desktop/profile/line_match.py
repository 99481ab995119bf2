"""Which lines of one version of a source file are the same lines in another version, so a
compared run's fuel per line is shown only beside the line it belongs to."""

from __future__ import annotations

from difflib import SequenceMatcher


def matched_lines(ours: str, theirs: str) -> dict[int, int]:
    """Our 1-based line → theirs, for the lines the two texts have in common (in order, as a
    diff pairs them); lines that changed, moved or exist on one side only are left out."""
    a, b = ours.splitlines(), theirs.splitlines()
    if a == b:
        return {n: n for n in range(1, len(a) + 1)}
    pairs: dict[int, int] = {}
    for block in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k + 1] = block.b + k + 1
    return pairs
