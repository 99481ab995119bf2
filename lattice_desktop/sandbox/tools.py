"""A build that cannot run because the grader's machine lacks a tool is the grader's
problem, not the submission's: it is refused with what to install, and no run is stored.

Checked twice. Before any command runs, the first word of each simple command (and the
module of `python -m MODULE`) must be found where the build will look for it: a frozen
bundle, which gives builds no Python, refuses `python …` up front. After a command fails,
its last lines are read for the shell's "NAME: not found" (exit 127) and Python's "No
module named X", in case the tool was called from a script.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from lattice_desktop.errors import Location, UserError
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.sandbox.isolation import TOOLCHAIN

# Shell syntax and builtins: words in command position that name no tool to look for.
_SHELL_SYNTAX_AND_BUILTINS = """
! { } ( ) [[ ]] if then else elif fi for while until do done case esac in function select coproc
time : . cd echo printf exit export set unset test [ true false read return shift source trap type
umask wait eval alias ulimit pwd local break continue let declare typeset readonly getopts hash
"""
SHELL_WORDS = frozenset(_SHELL_SYNTAX_AND_BUILTINS.split())
WRAPPERS = frozenset({"env", "nice", "time", "nohup", "command", "exec", "timeout", "xargs", "sudo"})
PYTHONS = re.compile(r"^python(\d+(\.\d+)?)?$")
NOT_FOUND = re.compile(r"^(?:[^:\n]*: )?(?:(?:line )?\d+: )?([^\s/:]+): (?:command )?not found$", re.M)
NO_MODULE = re.compile(r"No module named '?([A-Za-z_][\w.]*)'?")
_FIND_SPEC = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 3)"


class MissingTool(UserError):
    """The grader's machine lacks a tool a build needs: the grader's environment to fix."""


def _simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command in a shell line, operators and redirections split
    off; [] when the line is too clever to read this way (unbalanced quotes, functions,
    command or arithmetic substitution, here-documents, its own PATH): then only the check
    after a failure applies."""
    if any(part in command for part in ("PATH=", "$(", "`", "((", "<<")) or "()" in command.replace(" ", ""):
        return []
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    commands: list[list[str]] = [[]]
    redirected = False
    for token in tokens:
        if redirected:
            redirected = False
        elif set(token) <= set("<>&|;()"):
            redirected = "<" in token or ">" in token
            if not redirected:
                commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _program(words: list[str]) -> tuple[str, list[str]] | None:
    """The program a simple command runs and its arguments, past assignments and wrappers
    (`env`, `nice`, …); None where that is not plain (a wrapper's options, a variable)."""
    rest = list(words)
    while rest and (re.match(r"^[A-Za-z_]\w*=", rest[0]) or rest[0] in WRAPPERS):
        if rest.pop(0) in WRAPPERS and rest and (rest[0].startswith("-") or rest[0][:1].isdigit()):
            return None
    if not rest or rest[0] in SHELL_WORDS or "/" in rest[0] or "$" in rest[0] or "`" in rest[0]:
        return None
    return rest[0], rest[1:]


def _python_module(arguments: list[str]) -> str | None:
    if "-m" in arguments:
        index = arguments.index("-m")
        if index + 1 < len(arguments):
            return arguments[index + 1]
    return None


def _shipped(module: str, folder: Path) -> bool:
    """A module the submission itself ships (python -m runs it from the build folder)."""
    top = module.split(".")[0]
    return (folder / f"{top}.py").exists() or (folder / top).is_dir()


def _module_found(python: str, module: str) -> bool:
    done = subprocess.run(
        [python, "-I", "-c", _FIND_SPEC, module.split(".")[0]],
        check=False,
        capture_output=True,
        timeout=60,
        cwd="/",
        stdin=subprocess.DEVNULL,
    )
    return done.returncode == 0


def _refusal(submission: Submission, what: str, advice: str) -> MissingTool:
    return MissingTool(
        f"the build needs {what}, which this machine does not have where builds run. That is "
        f"the grader's environment, not the submission: {advice}; or name the folder that holds "
        f"it in {TOOLCHAIN}. Nothing was graded or stored",
        Location(str(submission.manifest_path), key="build.commands"),
    )


def _python_advice() -> str:
    if getattr(sys, "frozen", False):
        return (
            "this bundle gives builds no Python interpreter: install Python on the system "
            "(its `python3` in /usr/bin), use a pip install of Lattice Desktop, or grade the "
            "module the submission ships without --build"
        )
    return "install Python, or run Lattice Desktop from a venv (its `python` is on the build's PATH)"


def check_before_build(submission: Submission, path: str) -> None:
    """Refuse up front a build whose commands call a program (or `python -m` a module)
    that is not where the build will look; `path` is the build's PATH."""
    for command in submission.commands:
        for words in _simple_commands(command):
            found = _program(words)
            if found is None:
                continue
            program, arguments = found
            located = shutil.which(program, path=path)
            if located is None:
                advice = _python_advice() if PYTHONS.match(program) else f"install `{program}`"
                raise _refusal(submission, f"`{program}`", advice)
            module = _python_module(arguments) if PYTHONS.match(program) else None
            if module and not _shipped(module, submission.folder) and not _module_found(located, module):
                raise _refusal(
                    submission,
                    f"the Python module `{module}` (`{program} -m {module}`)",
                    f"install it into the Python the build runs ({located}), e.g. "
                    f"`{located} -m pip install {module.split('.')[0]}`",
                )


def check_after_failure(submission: Submission, code: int | None, output: str, path: str) -> None:
    """Raise `MissingTool` when a failed command's last lines say a tool was missing."""
    tail = "\n".join(output.strip().splitlines()[-20:])
    if code == 127:
        for name in reversed(NOT_FOUND.findall(tail)):
            if shutil.which(name, path=path) is None:
                raise _refusal(submission, f"`{name}`", f"install `{name}`")
    modules = NO_MODULE.findall(tail)
    if code not in (None, 0) and modules and not _shipped(modules[-1], submission.folder):
        module = modules[-1]
        raise _refusal(
            submission,
            f"the Python module `{module}`",
            f"install it into the Python the build runs, e.g. `python -m pip install {module.split('.')[0]}`",
        )
