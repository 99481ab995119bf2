"""The expected answers a build writes: the reference's output on each case entry, written
as the entry's expected file or, for an answer the author wrote inline, confirmed."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import tomli

from lattice_desktop.errors import Location, UserError
from lattice_desktop.manifest import CaseEntry, CaseManifest


def u64_list(values: Sequence[int]) -> bytes:
    """A `u64-list` answer's bytes: the values as little-endian u64."""
    return struct.pack(f"<{len(values)}Q", *values)


def write_placeholders(manifest: Path) -> None:
    """An empty file for each expected answer not written yet, so the manifest loads; the
    reference's answer replaces it (`record_answer`)."""
    try:
        cases = tomli.loads(manifest.read_text()).get("case", [])
    except (OSError, tomli.TOMLDecodeError):
        return  # load_case says what is wrong, with the line
    for entry in cases if isinstance(cases, list) else []:
        name = entry.get("expected_file") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.strip():
            path = (manifest.parent / name).resolve()
            if manifest.parent.resolve() in path.parents and not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()


def record_answer(case: CaseManifest, entry: CaseEntry, output: bytes) -> None:
    """Write the reference's `output` as `entry`'s expected answer, or confirm that it is the
    answer the manifest gives inline."""
    at = Location(str(case.path))
    if case.contract.output == "u64-list" and len(output) % 8:
        raise UserError(
            f"the reference's answer to '{entry.name}' is {len(output)} bytes, not a list of u64", at
        )
    if entry.expected_path is not None:
        entry.expected_path.write_bytes(output)
    elif output != _inline_expected(case, entry):
        raise UserError(
            f"case '{entry.name}': the reference answers {_shown(case, output)}, "
            f"the manifest expects {_shown(case, _inline_expected(case, entry))}",
            at,
        )


def _inline_expected(case: CaseManifest, entry: CaseEntry) -> bytes:
    if case.contract.abi == "scalar":
        return b"".join((v % 2**64).to_bytes(8, "little") for v in entry.scalar_expected)
    return entry.expected_bytes()


def _shown(case: CaseManifest, data: bytes) -> str:
    if case.contract.output == "u64-list" and len(data) % 8 == 0:
        return str([int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)][:8])
    return repr(data[:64])
