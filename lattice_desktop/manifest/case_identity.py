"""A case's identity: its name, version, variant and content hash, and whether that content
is the registered one (docs/case-identity.md).

A submission may ship a case of its own under any name and version. Its runs are graded and
stored like any other, but only the content registered for a name, version and variant may
read as that case: every other content is "unregistered", and every output that names such a
case says so with `CaseIdentity.note`, the one label text. Registered content comes from one
place, `registered_cases`; today it knows the bundled cases (resources/cases/NAME/case.toml).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import tomli

from lattice_desktop.errors import UserError
from lattice_desktop.manifest.case import CaseManifest, load_case
from lattice_desktop.resources import CASES

# (name, version, variant) -> the registered content hash
Registry = dict[tuple[str, int, str], str]


@dataclass(frozen=True)
class CaseIdentity:
    name: str
    version: int
    variant: str
    content: str  # the content hash (manifest, inputs, expected answers); "" when not recorded
    registered_content: str | None  # the registered content of this name, version and variant

    @property
    def registered(self) -> bool:
        return bool(self.content) and self.content == self.registered_content

    @property
    def scope(self) -> str:
        """ "lattice 3/standard": the name, version and variant, whatever the content."""
        return f"{self.name} {self.version}/{self.variant}"

    @property
    def note(self) -> str:
        """The one label of unregistered content ("" for registered content)."""
        if self.registered:
            return ""
        own = f"unregistered content {self.content[:12] or 'unknown'}"
        named = f"{self.name} {self.version}" + ("" if self.variant == "standard" else f"/{self.variant}")
        if self.registered_content is None:
            return f"{own} — {named} is not a registered case"
        return f"{own} — NOT the registered {named} (content {self.registered_content[:12]})"

    @property
    def label(self) -> str:
        """The scope, followed by the note when the content is not registered."""
        return self.scope if self.registered else f"{self.scope} · {self.note}"

    def to_json(self) -> dict[str, Any]:
        """The fields every JSON output that names a case carries."""
        return {
            "case_content": self.content or None,
            "registered": self.registered,
            "unregistered": self.note or None,
        }


def identify(name: str, version: int, variant: str, content: str | None) -> CaseIdentity:
    return CaseIdentity(name, version, variant, content or "", registered_content(name, version, variant))


def identify_case(case: CaseManifest) -> CaseIdentity:
    return identify(case.name, case.version, case.variant, case.manifest_hash)


def registered_content(name: str, version: int, variant: str) -> str | None:
    """The content registered for this name, version and variant, or None."""
    return registered_cases().get((name, version, variant))


def current_registered(name: str) -> tuple[int, str, str] | None:
    """(version, variant, content) of the name's newest registered version ("standard" first
    among its variants), or None: the board a name means by default."""
    ours = [(v, variant, c) for (n, v, variant), c in registered_cases().items() if n == name]
    ours.sort(key=lambda o: (-o[0], o[1] != "standard", o[1]))
    return ours[0] if ours else None


def registered_cases() -> Registry:
    """Every registered (name, version, variant) and its content: each version a bundled case
    ever published (its `published.toml`), and the bundled case as it is now. Runs of an
    older version stay runs of the registered case after the bundle moves on."""
    return {**_published_cases(), **_bundled_cases()}


@cache
def _published_cases() -> Registry:
    """The versions listed in resources/cases/NAME/published.toml, as

        [[published]]
        version = 3
        variant = "standard"
        content = "607cdf1d…"   # its content hash (manifest/case_hash.py)

    A list that cannot be read registers nothing beyond the bundled case itself."""
    found: Registry = {}
    for path in sorted(CASES.glob("*/published.toml")):
        try:
            entries = tomli.loads(path.read_text(encoding="utf-8")).get("published", [])
        except (OSError, UnicodeDecodeError, tomli.TOMLDecodeError):
            continue
        for entry in entries if isinstance(entries, list) else []:
            version, variant, content = (entry.get(k) for k in ("version", "variant", "content"))
            if isinstance(version, int) and isinstance(variant, str) and isinstance(content, str):
                found[(path.parent.name, version, variant)] = content
    return found


@cache
def _bundled_cases() -> Registry:
    """The bundled cases, read once (they do not change while the program runs). A case whose
    folder is not its name, or that does not load, registers nothing; grading it says why."""
    found: Registry = {}
    for path in sorted(CASES.glob("*/case.toml")):
        try:
            case = load_case(path)
        except UserError:
            continue
        if case.name == path.parent.name:
            found[(case.name, case.version, case.variant)] = case.manifest_hash
    return found
