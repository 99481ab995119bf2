"""`scenario generate | expect | check`: a held-out set made, answered and verified."""

from __future__ import annotations

import struct

from lattice_desktop.cli.main import main
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario


def test_generate_expect_check_round_trip(tmp_path, capsys):
    out = tmp_path / "held-out"
    assert main(["scenario", "generate", "--seed", "5", "--count", "3", "--size", "24", "16",
                 "--ticks", "40", "--snapshot", "8", "--out", str(out)]) == 0
    files = sorted(out.glob("*.lat"))
    assert len(files) == 3
    assert main(["scenario", "expect", str(out)]) == 0
    for path in files:
        expected = path.with_suffix(".u64").read_bytes()
        # The wasm reference's answers equal the Python reference engine's.
        assert list(struct.unpack(f"<{len(expected) // 8}Q", expected)) == simulate(parse_scenario(path.read_bytes()))
    capsys.readouterr()
    assert main(["scenario", "check", str(out)]) == 0
    assert "3 of 3 scenarios valid" in capsys.readouterr().out


def test_check_flags_a_bad_scenario_with_its_line_and_a_wrong_answer(tmp_path, capsys):
    main(["scenario", "generate", "--seed", "9", "--count", "2", "--size", "10", "10", "--out", str(tmp_path)])
    main(["scenario", "expect", str(tmp_path)])
    first, second = sorted(tmp_path.glob("*.lat"))
    first.write_text(first.read_text().replace("ticks ", "tick "))
    answers = bytearray(second.with_suffix(".u64").read_bytes())
    answers[0] ^= 1
    second.with_suffix(".u64").write_bytes(bytes(answers))
    capsys.readouterr()
    assert main(["scenario", "check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"invalid  {first}:" in out and "tick" in out
    assert f"MISMATCH {second}: first differs at snapshot 1" in out


def test_generate_one_to_stdout_is_deterministic(capsys):
    main(["scenario", "generate", "--seed", "11", "--size", "16", "12"])
    a = capsys.readouterr().out
    main(["scenario", "generate", "--seed", "11", "--size", "16", "12"])
    assert capsys.readouterr().out == a
    assert parse_scenario(a).width == 16
