"""Gathering every mistake in a manifest, so that one reading reports them all.

A reader asks for each value through `check`: a mistake is noted and a stand-in value
returned, so the reading goes on to the next key. At the end `raise_any` raises one
`ManifestProblems` holding every mistake found, in the order they were met.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from lattice_desktop.errors import ManifestError, ManifestProblems

T = TypeVar("T")
S = TypeVar("S")


class Problems:
    def __init__(self) -> None:
        self.found: list[ManifestError] = []

    def check(self, read: Callable[[], T], stand_in: S) -> T | S:
        """`read()`, or `stand_in` after noting the mistake it raised."""
        try:
            return read()
        except ManifestProblems as several:
            self.found.extend(several.problems)
        except ManifestError as error:
            self.found.append(error)
        return stand_in

    def add(self, error: ManifestError) -> None:
        self.found.append(error)

    def raise_any(self) -> None:
        if self.found:
            raise ManifestProblems(self.found)
