"""Find the line of a key in TOML text, so box errors can name file, key and line.

tomli returns plain dicts without positions; this scans the text for the table header
and the key. It understands `[table]`, `[[array.of.tables]]` and multi-line strings,
which is all a box file uses; when it cannot find a key it returns the table's line.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*[\"']?([A-Za-z0-9_\-]+)[\"']?\s*=")


def _code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line outside a multi-line string."""
    out: list[tuple[int, str]] = []
    inside: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if inside is None:
            out.append((number, line))
        for quote in ('"""', "'''"):
            if inside in (None, quote) and line.count(quote) % 2 == 1:
                inside = quote if inside is None else None
                break
    return out


def line_of(text: str, section: str | None, index: int | None = None,
            key: str | None = None) -> int | None:
    """Line of `key` in the `index`-th `[section]` (or `[[section]]`); None if not found.

    `section=None` means the top level, before the first header.
    """
    lines = _code_lines(text)
    start = 0
    header_line: int | None = None
    if section is not None:
        seen = -1
        for position, (number, line) in enumerate(lines):
            match = _HEADER.match(line)
            if match and match.group(1) == section:
                seen += 1
                if index is None or seen == index:
                    header_line, start = number, position + 1
                    break
        if header_line is None:
            return None
    if key is None:
        return header_line
    for number, line in lines[start:]:
        if _HEADER.match(line):
            break
        match = _KEY.match(line)
        if match and match.group(1) == key:
            return number
    return header_line
