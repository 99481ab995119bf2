"""Reading a trace file line by line, within stated limits, so that scoring holds the
events and never the file's text (docs/harness.md, "Limits")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lattice_desktop.errors import Location, UserError

MAX_TRACE_BYTES = 900 * 1024 * 1024
"""A trace is stored verbatim, as one database value: SQLite refuses a value over
1,000,000,000 bytes (its default SQLITE_MAX_LENGTH) and PostgreSQL one over 1 GB."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""One event's line; a longer one is refused before it is decoded."""


def trace_lines(path: str | Path) -> Iterator[str]:
    """The lines of a trace file as they are read: the file's size is checked first, each
    line's length as it is read, and each line must be UTF-8."""
    where = Location(str(path))
    try:
        size = Path(path).stat().st_size
        stream = open(path, "rb")  # noqa: SIM115 (closed below, also when the reader stops early)
    except FileNotFoundError:
        raise UserError("file not found", where) from None
    except OSError as exc:
        raise UserError(f"cannot read trace: {exc.strerror}", where) from None
    if size > MAX_TRACE_BYTES:
        stream.close()
        raise UserError(f"trace is {size:,} bytes; the limit is {MAX_TRACE_BYTES:,}", where)
    with stream:
        number = 0
        while raw := stream.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise UserError(
                    f"a line longer than {MAX_LINE_BYTES:,} bytes (the limit)", Location(str(path), number)
                )
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                raise UserError("trace is not valid UTF-8", Location(str(path), number)) from None
