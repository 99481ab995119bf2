"""The docs name only what exists: repository paths, `lattice-desktop` commands and
`python -m` modules (a renamed file or command must take its docs with it)."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

from lattice_desktop.cli.main import build_parser
from lattice_desktop.launcher import GUI_COMMANDS

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("lattice_desktop", "resources", "benchmarks", "docs", "tests", "packaging")
PATH = re.compile(rf"(?<![\w./-])((?:{'|'.join(TOP)})/[\w./*<>…-]*[\w*>])")
# A module named from inside the package (`ui/common/tasks.py`), or a test from inside tests/
SUBPACKAGES = sorted(p.name for p in (ROOT / "lattice_desktop").iterdir() if (p / "__init__.py").is_file())
INNER_PATH = re.compile(rf"(?<![\w./-])((?:{'|'.join(SUBPACKAGES)})/[\w./*<>…-]*\.py)\b")
CODE = re.compile(r"```.*?```|`[^`\n]+`|^(?: {4}|\t).*$", re.DOTALL | re.MULTILINE)
COMMAND = re.compile(r"(?<![\w-])lattice-desktop((?:[ \t]+[^\s`|;&)]+)+)")
MODULE = re.compile(r"\bpython3?[ \t]+(?:-[A-Za-z][ \t]+)*-m[ \t]+([\w.]+)")
PROJECT_MODULES = ("lattice_desktop", "benchmarks", "tests", "packaging")
WORD = re.compile(r"[a-z][a-z-]*")


def as_glob(path: str) -> str:
    """A documented path with placeholders (`cases/NAME/`, `<name>.c`, `…`) as a glob."""
    return re.sub(r"<[^>]*>|\b[A-Z][A-Z_]+\b|…", "*", path)


def exists(path: str, roots: tuple[Path, ...]) -> bool:
    pattern = as_glob(path.rstrip("."))
    return any(any(root.glob(pattern)) if "*" in pattern else (root / pattern).exists() for root in roots)


def missing_paths(text: str) -> list[str]:
    inner = (ROOT / "lattice_desktop", ROOT / "tests")
    missing = {path for path in PATH.findall(text) if not exists(path, (ROOT,))}
    missing |= {path for path in INNER_PATH.findall(text) if not exists(path, inner)}
    return sorted(missing)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def valued_options(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for a in parser._actions if a.nargs != 0 for flag in a.option_strings}


def unknown_command(words: list[str], parser: argparse.ArgumentParser) -> str | None:
    """The first word of `words` that names no subcommand where one is expected, else None."""
    while words:
        word = words.pop(0)
        if word.startswith("-"):
            if word in valued_options(parser) and "=" not in word and words:
                words.pop(0)
            continue
        choices = subcommands(parser)
        if not choices or not WORD.fullmatch(word):
            return None  # an argument, a placeholder or a path, not a command
        if word not in choices:
            return word
        parser = choices[word]
    return None


def unknown_commands(text: str) -> list[str]:
    top = build_parser()
    found = []
    for span in CODE.findall(text):
        code = re.sub(r"(?m)[ \t]#.*$", "", span)  # a shell comment
        for match in COMMAND.finditer(code):
            words = match.group(1).split()
            if words[0] in GUI_COMMANDS:  # the app's commands (launcher.py), not the CLI's
                continue
            if unknown_command(list(words), top) is not None:
                found.append(f"lattice-desktop{match.group(1)}")
        found += [
            f"python -m {module}"
            for module in MODULE.findall(code)
            if module.split(".")[0] in PROJECT_MODULES and importlib.util.find_spec(module) is None
        ]
    return found


def test_every_path_a_doc_names_exists():
    missing = {doc.name: missing_paths(doc.read_text()) for doc in DOCS}
    assert {name: paths for name, paths in missing.items() if paths} == {}


def test_every_command_a_doc_names_exists():
    unknown = {doc.name: unknown_commands(doc.read_text()) for doc in DOCS}
    assert {name: commands for name, commands in unknown.items() if commands} == {}


def test_the_checks_catch_a_gone_path_command_and_module():
    text = (
        "See `lattice_desktop/ui/no_such_tab.py`, `resources/cases/NAME/case.toml`, `store/writer.py`,\n"
        "`ui/test_main_window.py` (a test) and `store/no_such_module.py`; run\n"
        "```\nlattice-desktop gradee sub/\nlattice-desktop case neww\nlattice-desktop --db x.db runs\n"
        "python -m lattice_desktop.no_such_module\npython -m lattice_desktop.lattice.build_engines\n```\n"
    )
    assert missing_paths(text) == ["lattice_desktop/ui/no_such_tab.py", "store/no_such_module.py"]
    assert unknown_commands(text) == [
        "lattice-desktop gradee sub/",
        "lattice-desktop case neww",
        "python -m lattice_desktop.no_such_module",
    ]
    assert len(DOCS) > 5
