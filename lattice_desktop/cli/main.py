"""`lattice-desktop` subcommands (the Qt-free part; the app itself starts in launcher)."""

from __future__ import annotations

import argparse
import contextlib
import sys
import traceback

from lattice_desktop import __version__
from lattice_desktop.cli import (
    batch_cmd,
    case_cmd,
    compare_cmd,
    explain_cmd,
    export_cmd,
    grade_cmd,
    harness_cmd,
    profile_cmd,
    runs_cmd,
    scenario_cmd,
)
from lattice_desktop.cli.common import EXIT_CANCELLED, EXIT_INTERNAL, EXIT_USAGE
from lattice_desktop.cli.terminal import SafeStream, open_standard_descriptors
from lattice_desktop.errors import Cancelled, UserError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lattice-desktop",
        description="Grade WebAssembly submissions against performance cases. "
        "Run without a command to open the app on its bundled demo.",
        epilog="The app: lattice-desktop [--db PATH_OR_URL] [open PATH… | demo | screenshots OUTDIR]. "
        "A command whose standard output cannot be written (a full device) still finishes and "
        "stores its runs, then exits 2.",
    )
    parser.add_argument("--version", action="version", version=f"lattice-desktop {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (
        grade_cmd,
        batch_cmd,
        runs_cmd,
        export_cmd,
        case_cmd,
        scenario_cmd,
        harness_cmd,
        profile_cmd,
        compare_cmd,
        explain_cmd,
    ):
        module.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command with stdout and stderr escaped (a submission's text is not ours).

    A stderr that cannot be written drops its lines and changes nothing. A stdout that cannot
    be written (a full device; not a reader that left) loses the results but nothing stored:
    the command finishes, then exits `EXIT_USAGE` so that a script does not take it for done.
    """
    open_standard_descriptors()
    out, error = sys.stdout, sys.stderr
    if isinstance(out, SafeStream):
        return _run(argv)
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(error)
    safe_out = sys.stdout
    try:
        status = _run(argv)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(ValueError):  # closed by the command
                stream.flush()
        sys.stdout, sys.stderr = out, error
    return _unwritten_results(safe_out.unescaped.failed, status)


def _unwritten_results(failure: OSError | None, status: int) -> int:
    """`status`, unless stdout failed: then a line on stderr (if it takes one) and a usage error."""
    if failure is None:
        return status
    with contextlib.suppress(OSError, ValueError):
        print(f"error: could not write the results to standard output: {failure.strerror}", file=sys.stderr)
        sys.stderr.flush()
    return EXIT_USAGE


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Cancelled:
        print("cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_CANCELLED
    except BrokenPipeError:
        return 0
    except Exception:
        print("internal error (a bug in Lattice Desktop, not in your input):", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
