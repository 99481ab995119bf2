"""A case's content hash ignores the manifest's comments (a rebuild's fuel notes must not
split a field) and nothing else; a manifest without comments keeps the hash it had."""

from __future__ import annotations

import hashlib

from lattice_desktop.manifest import load_case
from lattice_desktop.manifest.case_hash import file_digest
from tests.core.wat_cases import ECHO_CASES, write_case


def test_comments_do_not_change_the_content_hash_but_values_and_strings_do(tmp_path):
    path = write_case(tmp_path / "case", ECHO_CASES)
    plain = load_case(path).manifest_hash
    text = path.read_text()
    path.write_text(
        "# a note on top\n" + text.replace("[[case]]", "[[case]]  # fuel: 1,234", 1) + "   # end\n"
    )
    assert load_case(path).manifest_hash == plain
    path.write_text(
        text.replace('behaviour = "echoes a short input"', 'behaviour = "echoes # a short input"')
    )
    assert load_case(path).manifest_hash != plain  # a '#' inside a string is content
    path.write_text(text.replace("fuel_limit = 100000", "fuel_limit = 100001"))
    assert load_case(path).manifest_hash != plain


def test_a_manifest_without_comments_hashes_as_before(tmp_path):
    path = write_case(tmp_path / "case", ECHO_CASES)
    case = load_case(path)
    assert b"#" not in path.read_bytes()
    digest = hashlib.sha256(path.read_bytes())  # the hash as it was: the bytes, then the files
    for entry in case.cases:
        for file in (entry.input_path, entry.expected_path):
            if file is not None:
                digest.update(file_digest(file))
    assert case.manifest_hash == digest.hexdigest()
