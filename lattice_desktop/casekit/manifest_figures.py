"""Write the calibrated figures into case.toml, in place, touching nothing else.

The author writes case.toml by hand (its behaviours, names, sizes and comments are theirs);
`case build` owns two kinds of line only: [sandbox]'s `fuel_limit` and each stress case's
`fuel_runway`, each followed by a comment with the fuel it came from. The same figures give
the same text, so an unchanged case rebuilds byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tomli

_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")


def with_figures(text: str, ceiling: int, runways: Mapping[str, tuple[int, int]], *, note: str) -> str:
    """`text` with `fuel_limit = ceiling` (commented with `note`) and, for each stress case
    named in `runways`, `fuel_runway = R` commented with the reference's fuel there."""
    cases = tomli.loads(text).get("case", [])
    lines = text.splitlines()
    blocks = _blocks(lines)
    out: list[str] = []
    case_index = 0
    for header, lines_of_block in blocks:
        body = lines_of_block
        if header == "sandbox":
            body = _set_key(body, "fuel_limit", f"fuel_limit = {ceiling:_}  # {note}")
        elif header == "case":
            name = cases[case_index].get("name") if case_index < len(cases) else None
            case_index += 1
            if isinstance(name, str) and name in runways:
                runway, fuel = runways[name]
                body = _set_key(
                    body, "fuel_runway", f"fuel_runway = {runway}  # the reference: {fuel:,} fuel"
                )
        out += body
    return "\n".join(out) + "\n"


def _blocks(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """The text cut at each table header: (the table's name, its lines with the header)."""
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in lines:
        match = _HEADER.match(line)
        if match:
            blocks.append((match.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    return blocks


def _set_key(body: list[str], key: str, line: str) -> list[str]:
    """The block with `key`'s line replaced by `line`, or `line` added after its last key."""
    keyed = [i for i, text in enumerate(body) if (m := _KEY.match(text))]
    own = [i for i in keyed if (m := _KEY.match(body[i])) and m.group(1) == key]
    if own:
        return [*body[: own[0]], line, *body[own[0] + 1 :]]
    at = keyed[-1] if keyed else 0
    return [*body[: at + 1], line, *body[at + 1 :]]
