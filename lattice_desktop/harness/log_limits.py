"""Bounds an Inspect AI log must fit before inspect_ai reads it (docs/security.md, "Harness
inputs"): inspect_ai reads a whole log into memory and its JSON reader recurses, so a
small archive that inflates to gigabytes, a corrupt or exotic member, or JSON nested a
thousand deep would otherwise end in MemoryError, RecursionError or a decompressor's own
exception. Everything here is measured while streaming — the sizes a zip's headers state
are never trusted — and each refusal is a `UserError` naming the file and the member.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.json_depth import DepthScanner

MAX_LOG_BYTES = 256 * 1024 * 1024
"""A log file on disk (.json, or a compressed .eval)."""
MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024
"""All members of an .eval together, inflated: inspect_ai holds the whole log in memory
(several times its JSON size once parsed)."""
MAX_MEMBERS = 20_000
"""Members of an .eval (one per sample and epoch, plus a few): read before any is opened."""
MAX_RATIO = 200
"""Inflated / compressed bytes of one member, once it passes RATIO_FLOOR: JSON logs
compress 5-30 times; a zip bomb compresses a thousand times."""
RATIO_FLOOR = 1024 * 1024
MAX_JSON_DEPTH = 200
"""Nesting of arrays and objects; a real log nests a few dozen deep at most."""
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate", 93: "zstd"}
"""Compression methods an .eval may use (Inspect writes zstd; older logs deflate)."""
CHUNK = 1024 * 1024


def _decompress_errors() -> tuple[type[BaseException], ...]:
    """What the decompressors raise on corrupt data (zstandard comes with inspect_ai)."""
    errors: list[type[BaseException]] = [zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:
        pass
    return tuple(errors)


def _entries(stream: BinaryIO, size: int, where: Location) -> int:
    """The member count the end-of-central-directory record states (zip64 too), read
    before zipfile builds one object per member."""
    tail_len = min(size, 65_536 + 22)
    stream.seek(size - tail_len)
    tail = stream.read(tail_len)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        raise UserError("not a readable Inspect AI log: not a zip archive", where)
    entries, cd_size = struct.unpack("<HI", tail[at + 10 : at + 16])
    if entries == 0xFFFF or cd_size == 0xFFFFFFFF:
        locator = tail.rfind(b"PK\x06\x07", 0, at)
        if locator < 0:
            raise UserError("not a readable Inspect AI log: a broken zip64 directory", where)
        (offset,) = struct.unpack("<Q", tail[locator + 8 : locator + 16])
        stream.seek(offset)
        record = stream.read(56)
        if record[:4] != b"PK\x06\x06" or len(record) < 48:
            raise UserError("not a readable Inspect AI log: a broken zip64 directory", where)
        entries, cd_size = struct.unpack("<QQ", record[32:48])
    if entries > MAX_MEMBERS or cd_size > MAX_MEMBERS * 4096:
        raise UserError(f"the archive holds {entries:,} members; the limit is {MAX_MEMBERS:,}", where)
    return int(entries)


def _chunks(reader: IO[bytes]) -> Iterator[bytes]:
    while chunk := reader.read(CHUNK):
        yield chunk


def _check_json(chunks: Iterator[bytes], where: Location) -> None:
    scanner = DepthScanner(MAX_JSON_DEPTH)
    for chunk in chunks:
        if not scanner.feed(chunk):
            raise UserError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels (the limit)", where)


def check_eval_archive(path: Path) -> None:
    """Refuse an .eval that is not within the limits above, or that does not decompress."""
    where = Location(str(path))
    errors = _decompress_errors()
    size = path.stat().st_size
    if size > MAX_LOG_BYTES:
        raise UserError(f"the log is {size:,} bytes; the limit is {MAX_LOG_BYTES:,}", where)
    with path.open("rb") as stream:
        _entries(stream, size, where)
        try:
            archive = zipfile.ZipFile(stream)
        except errors as exc:
            raise UserError(f"not a readable Inspect AI log: {exc}", where) from None
        with archive:
            total = 0
            for info in archive.infolist():
                member = Location(str(path), None, info.filename)
                method = METHODS.get(info.compress_type)
                if method is None:
                    raise UserError(
                        f"member uses compression method {info.compress_type}, which is not "
                        f"one an Inspect AI log uses ({', '.join(METHODS.values())})",
                        member,
                    )
                if info.flag_bits & 0x1:
                    raise UserError("member is encrypted", member)
                if info.is_dir():
                    continue
                total = _check_member(archive, info, total, member, errors)


def _check_member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    total: int,
    where: Location,
    errors: tuple[type[BaseException], ...],
) -> int:
    """Stream one member: count what it inflates to, its ratio, its JSON depth. Returns the
    running total of inflated bytes."""
    scanner = DepthScanner(MAX_JSON_DEPTH)
    seen = 0
    json_member = info.filename.endswith(".json")
    try:
        with archive.open(info) as reader:
            for chunk in _chunks(reader):
                seen += len(chunk)
                total += len(chunk)
                if total > MAX_UNCOMPRESSED_BYTES:
                    raise UserError(
                        f"the archive inflates to more than {MAX_UNCOMPRESSED_BYTES:,} bytes (the limit)",
                        where,
                    )
                if seen > RATIO_FLOOR and seen > MAX_RATIO * max(info.compress_size, 1):
                    raise UserError(
                        f"member inflates more than {MAX_RATIO} times its compressed size "
                        f"({info.compress_size:,} bytes): a zip bomb?",
                        where,
                    )
                if json_member and not scanner.feed(chunk):
                    raise UserError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels (the limit)", where)
    except UserError:
        raise
    except errors as exc:
        raise UserError(f"member cannot be decompressed: {type(exc).__name__}: {exc}", where) from None
    return total


def check_json_log(path: Path) -> None:
    """Refuse a .json log over its size limit or nested too deeply (read in chunks)."""
    where = Location(str(path))
    size = path.stat().st_size
    if size > MAX_LOG_BYTES:
        raise UserError(f"the log is {size:,} bytes; the limit is {MAX_LOG_BYTES:,}", where)
    with path.open("rb") as stream:
        _check_json(_chunks(stream), where)
