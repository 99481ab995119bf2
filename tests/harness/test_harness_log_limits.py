"""Harness inputs are bounded (issue 19.5): every hostile Inspect AI log or trace is a clear
error (exit 2) with nothing stored, and `harness import BAD GOOD` still stores GOOD."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from harness_builders import RESOURCES, jsonl

from lattice_desktop.cli.main import main
from lattice_desktop.errors import UserError
from lattice_desktop.harness import log_limits, parse_box
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.json_depth import DepthScanner

EXAMPLE = RESOURCES / "inspect" / "webshop_ctf.eval"
BOX = RESOURCES / "inspect" / "webshop_ctf.box.toml"
WEB_BOX = RESOURCES / "webshop.box.toml"


def box():
    return parse_box(BOX.read_text(), source=str(BOX))


def rezip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def example_members() -> dict[str, bytes]:
    import zipfile_zstd  # noqa: F401  (zstd for zipfile, as inspect_ai installs it)

    with zipfile.ZipFile(EXAMPLE) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def refused(path: Path, match: str) -> UserError:
    with pytest.raises(UserError, match=match) as info:
        read_inspect_log(path, box())
    assert info.value.location.file == str(path)
    return info.value


def sample_member(members: dict[str, bytes]) -> str:
    return next(name for name in members if name.startswith("samples/"))


def test_a_zip_bomb_is_refused_by_its_ratio_while_streaming(tmp_path):
    members = example_members()
    members[sample_member(members)] = b" " * (64 * 1024 * 1024)  # 64 MiB of spaces: ~1000x
    refused(rezip(tmp_path / "bomb.eval", members), "inflates more than 200 times")


def test_the_inflated_total_is_counted_not_read_from_headers(tmp_path, monkeypatch):
    monkeypatch.setattr(log_limits, "MAX_UNCOMPRESSED_BYTES", 2 * 1024 * 1024)
    members = example_members()
    members["samples/extra.json"] = json.dumps([os.urandom(16).hex() for _ in range(120_000)]).encode()
    refused(rezip(tmp_path / "big.eval", members), "inflates to more than 2,097,152 bytes")


def test_a_header_that_understates_a_member_is_refused(tmp_path):
    path = rezip(tmp_path / "lying.eval", example_members(), zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    central = data.rfind(b"PK\x01\x02")  # the last member's directory entry: shrink its size
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    refused(path, "not a readable Inspect AI log|cannot be decompressed")


def test_too_many_members(tmp_path, monkeypatch):
    monkeypatch.setattr(log_limits, "MAX_MEMBERS", 50)
    members = {**example_members(), **{f"junk/{i}.txt": b"" for i in range(60)}}
    refused(rezip(tmp_path / "many.eval", members), "members; the limit is 50")


def test_compression_method_99(tmp_path):
    path = rezip(tmp_path / "aes.eval", example_members())
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset : at + offset + 2] = (99).to_bytes(2, "little")
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    refused(path, "compression method 99")


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, 93])
def test_a_corrupt_member_is_refused(tmp_path, method):
    import zipfile_zstd  # noqa: F401

    path = rezip(tmp_path / "corrupt.eval", example_members(), method)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(sample_member(example_members()))
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + 8, start + min(info.compress_size, 200)):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    refused(path, "cannot be decompressed|not a readable Inspect AI log")


def test_json_nested_a_thousand_deep(tmp_path):
    members = example_members()
    members["samples/deep.json"] = b"[" * 1000 + b"]" * 1000
    refused(rezip(tmp_path / "deep.eval", members), "nested deeper than 200")
    log = tmp_path / "deep.json"
    log.write_bytes(b'{"a": ' + b"[" * 1000 + b"]" * 1000 + b"}")
    refused(log, "nested deeper than 200")


def test_a_huge_json_log_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(log_limits, "MAX_LOG_BYTES", 1024)
    log = tmp_path / "huge.json"
    log.write_bytes(b" " * 2048)
    refused(log, "the log is 2,048 bytes; the limit is 1,024")


def test_the_depth_scanner_skips_strings_across_chunks():
    doc = json.dumps({"a": ["[[[", {"b": 'x\\"[{'}, [[[]]]], "c": "\\\\"}).encode()
    for size in (1, 2, 3, 7, len(doc)):
        scanner = DepthScanner(5)
        assert all(scanner.feed(doc[i : i + size]) for i in range(0, len(doc), size))
        assert scanner.deepest == 5 and scanner.depth == 0


def test_a_jsonl_number_of_5001_digits(tmp_path, capsys):
    trace = tmp_path / "digits.jsonl"
    text = jsonl([{"type": "model_usage", "t": 1.0, "cost_usd": 0.5}])
    trace.write_text(text.replace('"cost_usd": 0.5', '"cost_usd": ' + "9" * 5001))
    assert main(["harness", "score", str(trace), "--box", str(WEB_BOX)]) == 2
    assert "digits.jsonl:2: not a usable JSON value" in capsys.readouterr().err


BAD_LOGS = {
    "bomb.eval": lambda m: {**m, sample_member(m): b" " * (64 * 1024 * 1024)},
    "deep.eval": lambda m: {**m, "samples/deep.json": b"[" * 1000 + b"]" * 1000},
    "digits.eval": lambda m: {**m, sample_member(m): b'{"id": ' + b"7" * 5001 + b"}"},
}


@pytest.mark.parametrize("name", sorted(BAD_LOGS))
def test_import_bad_good_stores_good(tmp_path, capsys, name):
    bad = rezip(tmp_path / name, BAD_LOGS[name](example_members()))
    db = str(tmp_path / "h.db")
    code = main(["harness", "import", str(bad), str(EXAMPLE), "--box", str(BOX), "--db", db])
    out = capsys.readouterr()
    assert code == 2 and out.err.count("error:") == 1 and name in out.err
    assert "Traceback" not in out.err
    assert out.out.count("stored harness run") == 1  # GOOD, and nothing of BAD
