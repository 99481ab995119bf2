"""What the profiler reads from a module's binary before any text is printed: its sections'
sizes and counts (so a module too large to profile is refused before work is spent), the
function names of its name section, and the module without that section.

Names are read here, from the name section's bytes, rather than from printed text: a name
may hold any characters (`(;0;)`, quotes, `\\u202e`), and the instrumenter then works on a
module printed with indices only.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass

from lattice_desktop.profile.wat_tools import WasmToolsError

_MAGIC = b"\0asm\x01\0\0\0"
IMPORT, FUNCTION, CODE, CUSTOM = 2, 3, 10, 0
_FUNCTION_NAMES = 1


@dataclass(frozen=True)
class Section:
    id: int
    start: int  # the section's first byte (its id)
    payload: int  # its payload's first byte
    end: int

    @property
    def size(self) -> int:
        return self.end - self.payload


@dataclass(frozen=True)
class Shape:
    """How big a module is where the profiler's work grows: bytes, functions, code."""

    size: int
    functions: int  # defined functions
    code_bytes: int
    imports: int


def _leb(data: bytes, at: int, end: int) -> tuple[int, int]:
    """An unsigned LEB128 at `at` (at most 5 bytes: a u32), and where the next item starts."""
    value = shift = 0
    for i in range(at, min(at + 5, end)):
        value |= (data[i] & 0x7F) << shift
        if data[i] < 0x80:
            return value, i + 1
        shift += 7
    raise WasmToolsError(f"not a valid wasm module: a bad number at byte {at}")


def sections(wasm: bytes) -> list[Section]:
    """The module's sections in order; a `WasmToolsError` when the framing does not hold."""
    if not wasm.startswith(_MAGIC):
        raise WasmToolsError("not a core wasm module (no wasm magic and version 1 header)")
    found: list[Section] = []
    at = len(_MAGIC)
    while at < len(wasm):
        size, payload = _leb(wasm, at + 1, len(wasm))
        if payload + size > len(wasm):
            raise WasmToolsError(f"not a valid wasm module: section at byte {at} runs past the end")
        found.append(Section(wasm[at], at, payload, payload + size))
        at = payload + size
    return found


def shape(wasm: bytes) -> Shape:
    """The module's size, defined function count, code bytes and import count."""
    counts = {IMPORT: 0, CODE: 0}
    code_bytes = 0
    for section in sections(wasm):
        if section.id in counts and section.size:
            counts[section.id] = _leb(wasm, section.payload, section.end)[0]
        if section.id == CODE:
            code_bytes = section.size
    return Shape(len(wasm), counts[CODE], code_bytes, counts[IMPORT])


def _custom_name(wasm: bytes, section: Section) -> tuple[bytes, int]:
    length, at = _leb(wasm, section.payload, section.end)
    return wasm[at : at + length], at + length


def custom_names(wasm: bytes) -> list[bytes]:
    """The names of the module's custom sections, in order."""
    return [_custom_name(wasm, s)[0] for s in sections(wasm) if s.id == CUSTOM]


def without_custom(wasm: bytes) -> bytes:
    """The module without any custom section (names, DWARF, producers): what runs, and
    nothing an instrumented copy could carry over stale or print as a huge line."""
    kept = [wasm[: len(_MAGIC)]]
    kept += [wasm[s.start : s.end] for s in sections(wasm) if s.id != CUSTOM]
    return b"".join(kept)


def code_start(wasm: bytes) -> int:
    """Where the code section's payload starts (DWARF addresses count from there)."""
    return next((s.payload for s in sections(wasm) if s.id == CODE), 0)


def function_names(wasm: bytes) -> dict[int, str]:
    """Function index → name from the name section; a malformed section gives what it read."""
    names: dict[int, str] = {}
    for section in sections(wasm):
        if section.id != CUSTOM or _custom_name(wasm, section)[0] != b"name":
            continue
        # Names are for reading: a broken section leaves the indices it did not reach.
        with suppress(WasmToolsError, IndexError):
            _read_function_names(wasm, _custom_name(wasm, section)[1], section.end, names)
    return names


def _read_function_names(wasm: bytes, at: int, end: int, names: dict[int, str]) -> None:
    while at < end:
        kind = wasm[at]
        size, at = _leb(wasm, at + 1, end)
        stop = min(at + size, end)
        if kind == _FUNCTION_NAMES:
            count, at = _leb(wasm, at, stop)
            for _ in range(count):
                index, at = _leb(wasm, at, stop)
                length, at = _leb(wasm, at, stop)
                names[index] = wasm[at : min(at + length, stop)].decode("utf-8", "replace")
                at += length
        at = stop
