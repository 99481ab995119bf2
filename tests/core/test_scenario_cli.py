"""`scenario generate | expect | check`: a held-out set made, answered and verified."""

from __future__ import annotations

import struct

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario


def test_generate_expect_check_round_trip(tmp_path, capsys):
    out = tmp_path / "held-out"
    assert (
        main(
            [
                "scenario",
                "generate",
                "--seed",
                "5",
                "--count",
                "3",
                "--size",
                "24",
                "16",
                "--ticks",
                "40",
                "--snapshot",
                "8",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    files = sorted(out.glob("*.lat"))
    assert len(files) == 3
    assert main(["scenario", "expect", str(out)]) == 0
    for path in files:
        expected = path.with_suffix(".u64").read_bytes()
        # The wasm reference's answers equal the Python reference engine's.
        assert list(struct.unpack(f"<{len(expected) // 8}Q", expected)) == simulate(
            parse_scenario(path.read_bytes())
        )
    capsys.readouterr()
    assert main(["scenario", "check", str(out)]) == 0
    assert "3 of 3 scenarios valid" in capsys.readouterr().out


def test_check_flags_a_bad_scenario_with_its_line_and_a_wrong_answer(tmp_path, capsys):
    main(
        ["scenario", "generate", "--seed", "9", "--count", "2", "--size", "10", "10", "--out", str(tmp_path)]
    )
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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "0"], "--count: must be at least 1, not 0"),
        (["--count", "-3"], "--count: must be at least 1, not -3"),
        (["--density", "1.5"], "--density: must be in [0, 1], not 1.5"),
        (["--density", "-0.1"], "--density: must be in [0, 1], not -0.1"),
        (["--noise", "2"], "--noise: must be in [0, 1], not 2"),
        (["--size", "0", "5"], "--size: must be at least 1, not 0"),
        (["--size"], "--size: expected 2 arguments"),
        (["--ticks", "0"], "--ticks: must be at least 1, not 0"),
    ],
)
def test_generate_refuses_what_makes_no_scenario(args, message, capsys):
    # These used to print nothing, or an empty grid, and exit 0.
    with pytest.raises(SystemExit) as exited:
        main(["scenario", "generate", *args])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err


def test_generate_too_big_is_a_usage_error(capsys):
    assert main(["scenario", "generate", "--size", "4097", "8"]) == 2
    assert "outside 1..4096" in capsys.readouterr().err


def test_generate_noise_adds_random_cells(capsys):
    main(["scenario", "generate", "--seed", "4", "--size", "30", "30", "--density", "0"])
    plain = capsys.readouterr().out
    main(["scenario", "generate", "--seed", "4", "--size", "30", "30", "--density", "0", "--noise", "0.3"])
    noisy = capsys.readouterr().out
    assert parse_scenario(noisy).grid.count(b".") < parse_scenario(plain).grid.count(b".") - 200
    assert parse_scenario(noisy).width == 30
