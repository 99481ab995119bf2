"""Without a display the launcher names the commands that still work: every command of the
command line (`lattice-desktop --help`), none left out (`compare` once was)."""

from __future__ import annotations

import argparse

from lattice_desktop.cli.main import build_parser
from lattice_desktop.launcher import no_display_reason


def test_the_no_display_line_names_every_command():
    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    (commands,) = actions
    line = no_display_reason({}, "linux")
    assert line is not None
    named = {word.strip(",.()") for word in line.split()}
    missing = sorted(set(commands.choices) - named)
    assert not missing, line
