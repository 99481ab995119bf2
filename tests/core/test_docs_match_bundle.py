"""The documents say what the bundle is: wherever they name the bundled case's current
version, or count or list its samples, the figure is the bundle's own. A case that moves to
a new version, or gains a sample, fails here until the documents follow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}

# "the bundled Lattice case (version 3)", "On the bundled case (version 3)"
CURRENT_VERSION = re.compile(r"bundled (?:Lattice )?case \(version (\d+)\)")
# "its five sample submissions", "version 3's five samples"
SAMPLE_COUNT = re.compile(r"(?:its|the|version \d+'s) (\w+) sample(?: submission)?s", re.I)
# "five sample submissions (`reference`, `lines`, …)": the names in the brackets
SAMPLE_NAMES = re.compile(r"sample(?: submission)?s \(((?:`\w+`,? ?)+)\)")


@pytest.fixture(scope="module")
def bundle():
    case = load_case(CASES / "lattice" / "case.toml")
    samples = sorted(p.name for p in (CASES / "lattice" / "submissions").iterdir() if p.is_dir())
    return case.version, samples


def _text(path: Path) -> str:
    return " ".join(path.read_text().split())  # a phrase may break across lines


def test_documents_name_the_bundled_case_at_its_version(bundle):
    version, _ = bundle
    found = [(p.name, int(v)) for p in DOCUMENTS for v in CURRENT_VERSION.findall(_text(p))]
    assert found, "no document names the bundled case's version: the pattern no longer matches"
    assert [f for f in found if f[1] != version] == []


def test_documents_count_the_samples_the_bundle_has(bundle):
    version, samples = bundle
    counts = []
    for path in DOCUMENTS:
        text = _text(path)
        for match in SAMPLE_COUNT.finditer(text):
            word = match.group(1).lower()
            if word in NUMBERS:
                stated = re.search(r"version (\d+)'s", match.group(0))
                if stated is None or int(stated.group(1)) == version:
                    counts.append((path.name, NUMBERS[word]))
    assert counts, "no document counts the samples: the pattern no longer matches"
    assert [c for c in counts if c[1] != len(samples)] == []


def test_listed_samples_are_the_bundled_ones(bundle):
    _, samples = bundle
    lists = [
        (path.name, sorted(re.findall(r"`(\w+)`", match.group(1))))
        for path in DOCUMENTS
        for match in SAMPLE_NAMES.finditer(_text(path))
    ]
    assert lists, "no document lists the samples by name: the pattern no longer matches"
    assert [entry for entry in lists if entry[1] != samples] == []


def test_the_guide_says_which_command_made_each_screenshot():
    guide = _text(ROOT / "docs" / "guide.md")
    shots = sorted(p.name for p in (ROOT / "docs" / "screenshots").glob("*.png"))
    source = (ROOT / "lattice_desktop" / "ui" / "window" / "screenshots.py").read_text()  # what it saves
    saved = set(re.findall(r"""shot\([^,]+, "(\w+)"\)""", source))
    others = [s for s in shots if s.removesuffix(".png") not in saved]
    assert saved, "the screenshots command's pictures could not be read from its source"
    for shot in others:  # a picture the command does not save names the one that does
        assert shot in guide and "profile_screenshot" in guide, shot
