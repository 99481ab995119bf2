"""Reading a user's text file with a stated size limit and errors that name the file."""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.errors import Location, UserError


def read_text(path: str | Path, *, limit: int, what: str) -> str:
    """The file's UTF-8 text; too large, unreadable or undecodable is a located UserError."""
    path = Path(path)
    where = Location(str(path))
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise UserError("file not found", where) from None
    except OSError as exc:
        raise UserError(f"cannot read {what}: {exc.strerror}", where) from None
    if size > limit:
        raise UserError(f"{what} is {size:,} bytes; the limit is {limit:,}", where)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {what}: {exc.strerror}", where) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UserError(f"{what} is not valid UTF-8", Location(str(path), line)) from None
