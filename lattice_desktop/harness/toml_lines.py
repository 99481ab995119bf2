"""Find the line of a key in TOML text, so box errors can name file, key and line.

A thin view over the manifest reader's scanner, addressed the way the box reader
walks its tables: a section name, an index for `[[array]]` tables, and a key.
"""

from __future__ import annotations

from lattice_desktop.manifest.toml_source import key_lines


def line_of(text: str, section: str | None, index: int | None = None, key: str | None = None) -> int | None:
    """Line of `key` in the `index`-th `[section]` (or `[[section]]`); None if not found.

    `section=None` means the top level. Falls back to the table's own line.
    """
    lines = key_lines(text)
    table: tuple[str | int, ...] = () if section is None else tuple(section.split("."))
    candidates = [(*table, index)] if index is not None else [table, (*table, 0)]
    for path in candidates:
        if key is not None and (*path, key) in lines:
            return lines[(*path, key)]
    for path in candidates:
        if path in lines:
            return lines[path]
    return 1 if section is None else None  # a missing top-level key: the top of the file
