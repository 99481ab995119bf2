"""Hostile text on the terminal: escape sequences and newlines in a submission's model name,
import names and details never reach the terminal raw, and progress lines stay whole."""

from __future__ import annotations

import io
import re
import threading

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.cli.terminal import SafeStream, shown
from tests.core.wat_cases import ECHO, write_case, write_submission

TITLE = "\x1b]0;PWNED\x07"  # sets the terminal's title
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
FORGED = "\n    7  lattice 1/standard  forged-model  ✓ correct"
HOSTILE_MODEL = f"evil{TITLE}{CLEAR}{FORGED}"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\u2028]")


def echo_cases(count: int) -> str:
    """`count` echo cases, the first two smoke tests."""
    smoke, stress = 'kind = "smoke"\nbehaviour = "echoes"', 'kind = "stress"'
    return "".join(
        f'[[case]]\nname = "c{i}"\n{smoke if i < 2 else stress}\ninput = "x{i}"\nexpected = "x{i}"\n\n'
        for i in range(count)
    )


def toml_string(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or c in '"\\' else c for c in text)


def hostile_submission(folder, *, wat: str = ECHO):
    write_submission(folder, wat)
    manifest = folder / "submission.toml"
    manifest.write_text(manifest.read_text().replace('"model-a"', f'"{toml_string(HOSTILE_MODEL)}"'))
    return folder


def linking_module(module: str, name: str) -> str:
    def wat(text: str) -> str:
        return "".join(f"\\{ord(c):02x}" if ord(c) < 0x20 else c for c in text)

    return f'(module (import "{wat(module)}" "{wat(name)}" (func)) (memory (export "memory") 1))'


@pytest.mark.parametrize(
    "text",
    [
        TITLE,
        CLEAR,
        "a\nb",
        "a\rb",
        "a\x7fb",
        "a\x9b2Jb",
        "a\u202eb",
        "a\u2028b",
        "a\x00b",
        "a\tb",
    ],
)
def test_every_control_character_is_written_as_a_visible_escape(text):
    out = shown(text)
    assert not RAW.search(out) and "\n" not in out and "\t" not in out
    assert "\\u00" in out or "\\u20" in out


def test_plain_text_and_non_latin_names_are_unchanged():
    for text in ("model-a", "Modèle Ω 模型 🦀", "back\\slash"):
        assert shown(text) == text


def test_a_hostile_model_and_import_name_cannot_drive_the_terminal(tmp_path, capsys):
    case = write_case(tmp_path / "case", echo_cases(3))
    good = write_submission(tmp_path / "good", ECHO, model="honest")
    evil = hostile_submission(tmp_path / "evil", wat=linking_module(f"env{TITLE}", f"f{CLEAR}"))
    db = ["--db", str(tmp_path / "runs.db")]
    assert main(["grade", str(good), "--case", str(case), *db]) == 0
    assert main(["grade", str(evil), "--case", str(case), *db]) == 1
    graded = capsys.readouterr()
    assert main(["runs", *db]) == 0
    runs = capsys.readouterr()
    assert main(["show", "2", *db]) == 0
    show = capsys.readouterr()
    assert main(["leaderboard", "echo", *db]) == 0
    board = capsys.readouterr()
    for stream in (graded, runs, show, board):
        assert not RAW.search(stream.out + stream.err), (stream.out + stream.err)[:2000]
    lines = runs.out.splitlines()
    assert len(lines) == 3, lines  # header, the hostile run, the honest run: no forged third run
    assert "evil\\u001b]0;PWNED\\u0007" in lines[1] and "forged-model" in lines[1]
    assert "env\\u001b]0;PWNED\\u0007.f\\u001b[2J" in show.out
    assert "evil\\u001b]0;PWNED" in show.out.splitlines()[0]


def test_json_output_keeps_the_hostile_name_exact_and_escaped(tmp_path, capsys):
    case = write_case(tmp_path / "case", echo_cases(3))
    evil = hostile_submission(tmp_path / "evil")
    assert main(["grade", str(evil), "--case", str(case), "--json", "--db", str(tmp_path / "r.db")]) == 0
    out = capsys.readouterr().out
    assert not RAW.search(out)
    import json

    assert json.loads(out)["submission"]["model"] == HOSTILE_MODEL


def test_progress_lines_of_the_two_workers_stay_whole(tmp_path, capsys):
    case = write_case(tmp_path / "case", echo_cases(40))
    sub = write_submission(tmp_path / "sub", ECHO)
    assert main(["grade", str(sub), "--case", str(case), "--workers", "2", "--no-store"]) == 0
    progress = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert len(progress) == 40
    assert all(re.fullmatch(r"\[\d+/40\] (smoke |stress) c\d+: ✓ pass", line) for line in progress), progress


def test_lines_printed_by_many_threads_never_mix():
    target = io.StringIO()
    stream = SafeStream(target)
    words = [f"thread-{n}-" + "x" * (40 + n) for n in range(4)]

    def chatter(word: str) -> None:
        for _ in range(2000):
            print(word, file=stream)

    threads = [threading.Thread(target=chatter, args=(w,)) for w in words]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stream.flush()
    lines = target.getvalue().splitlines()
    assert len(lines) == 8000 and set(lines) == set(words)


def test_the_stream_escapes_what_a_command_forgot_to(tmp_path):
    target = io.StringIO()
    stream = SafeStream(target)
    stream.write(f"trap: {TITLE}\tdone\n")
    stream.write("partial \x1b[2J")
    stream.flush()
    assert target.getvalue() == "trap: \\u001b]0;PWNED\\u0007\tdone\npartial \\u001b[2J"


def test_an_escaped_json_string_is_still_valid_json_with_the_same_text():
    import json

    text = json.dumps({"model": "a\x9b2J\u202eb\u2028c"}, ensure_ascii=False)  # as harness --json
    target = io.StringIO()
    stream = SafeStream(target)
    stream.write(text + "\n")
    assert not RAW.search(target.getvalue())
    assert json.loads(target.getvalue()) == {"model": "a\x9b2J\u202eb\u2028c"}


def test_the_app_header_shows_a_markup_model_name_as_text(qtbot, tmp_path):
    from PySide6.QtCore import QSettings, Qt

    from lattice_desktop.ui.window.main_window import MainWindow

    case = write_case(tmp_path / "case", echo_cases(3))
    sub = write_submission(tmp_path / "sub", ECHO, model="<h1 style='color:red'>HACKED</h1>")
    assert main(["grade", str(sub), "--case", str(case), "--db", str(tmp_path / "r.db")]) == 0
    window = MainWindow(
        str(tmp_path / "r.db"),
        auto_demo=False,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.runs_loaded, timeout=10_000)
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.runs_panel.select_run(1)
    title = window.header.title
    assert title.textFormat() == Qt.TextFormat.PlainText
    assert title.text().endswith("<h1 style='color:red'>HACKED</h1>")


def test_every_control_and_separator_character_of_unicode_is_escaped():
    import sys
    import unicodedata

    bidi = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        unsafe = unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in bidi
        assert (shown(char) != char) == unsafe, hex(code)
