"""A case's own code (its input generator, the build commands of its reference, samples and
slips) run as a submission's build is: in the build jail, in a cgroup, with a scrubbed
environment and a time limit, on a copy of the folder.

A case folder from someone else is as untrusted as a submission folder, so `case build`
never runs its code as the user: the folder is copied into a scratch folder from its
descriptor (links stay links, never followed), the commands run jailed there (they can
write nowhere else, see none of the user's files and no network), and afterwards the
scratch tree is copied back over the folder (a stage, itself a copy) without following or
keeping any link the commands made. Where the jail cannot be set up nothing runs unless an
unisolated run is allowed explicitly, as for a submission.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from lattice_desktop.errors import Location, UserError
from lattice_desktop.manifest.no_follow import NotBeneath, open_folder
from lattice_desktop.resources import RESOURCES
from lattice_desktop.sandbox.beneath import copy_folder
from lattice_desktop.sandbox.build import COPY_LIMIT, DISK_LIMIT, run_build_command, scrubbed_environment
from lattice_desktop.sandbox.cgroup import BuildCgroup, build_bounds, build_cgroup, unbounded_note
from lattice_desktop.sandbox.isolation import MARKER, isolation
from lattice_desktop.sandbox.leftovers import sweep_leftovers
from lattice_desktop.sandbox.scratch import capped_scratch, scratch_prefix
from lattice_desktop.work import Work

SCRATCH_TMP = ".tmp"  # the commands' TMPDIR inside the copy: not copied back
LOG_TAIL = 2000  # characters of the log a failure shows


def run_jailed(
    folder: Path,
    commands: Sequence[str],
    *,
    where: str,
    timeout: float,
    workdir: str = "",
    allow_unisolated: bool = False,
    work: Work | None = None,
) -> str:
    """Run `commands` one after the other in `workdir` (relative to `folder`) on a jailed
    copy of `folder`, then make `folder` what they left; the log. A command that fails,
    runs out of time or passes the cgroup's bounds is a `UserError` located at `where`
    ending with what it printed, and `folder` is left as it was."""
    sweep_leftovers()
    work = work or Work()
    jail = isolation()
    if not jail.available and not allow_unisolated:
        raise UserError(
            f"build isolation is unavailable here ({jail.reason}), so the case's code was not run. "
            "To run it anyway with your user's rights, allow an unisolated build explicitly "
            "(--allow-unisolated-build)",
            Location(where),
        )
    started = time.monotonic()
    bounds = build_bounds()
    log: list[str] = [jail.log_line]
    with (
        tempfile.TemporaryDirectory(prefix=scratch_prefix("build")) as scratch_root,
        capped_scratch(scratch_root, min(DISK_LIMIT, bounds.memory)) as uncapped,
        build_cgroup(bounds) as cgroup,
    ):
        log.append(unbounded_note(cgroup, bounds) if isinstance(cgroup, str) else cgroup.log_line)
        scratch = Path(scratch_root) / "src"
        _copy(folder, scratch, log)
        (scratch / SCRATCH_TMP).mkdir(exist_ok=True)
        env = scrubbed_environment(scratch)
        # A tool's caches (zig's, under HOME) stay out of what is copied back.
        env["HOME"] = env["TMPDIR"] = str(scratch / SCRATCH_TMP)
        env[MARKER] = secrets.token_hex(16)
        for command in commands:
            log.append(f"$ {command}\n")
            code, output, reason = run_build_command(
                command,
                scratch / workdir,
                env,
                timeout - (time.monotonic() - started),
                work,
                jail=jail,
                scratch_root=Path(scratch_root),
                hides=(Path(os.path.realpath(RESOURCES)),),
                disk_limit=DISK_LIMIT if uncapped else None,
                cgroup=cgroup if isinstance(cgroup, BuildCgroup) else None,
                memory=bounds.memory,
            )
            log.append(output)
            if reason or code != 0:
                why = reason or f"failed (exit {code})"
                tail = "".join(log).strip()[-LOG_TAIL:]
                raise UserError(f"`{command}` {why}:\n{tail}", Location(where))
        _copy_back(scratch, folder, log)
    return "".join(log)


def _copy(folder: Path, scratch: Path, log: list[str]) -> None:
    try:
        folder_fd = open_folder(folder)
    except NotBeneath as exc:
        raise UserError(str(exc)) from None
    try:
        copy_folder(folder_fd, scratch, limit=COPY_LIMIT, log=log)
    except (NotBeneath, OSError) as exc:
        raise UserError(f"{folder} could not be copied for the jail: {exc}") from None
    finally:
        os.close(folder_fd)


def _copy_back(scratch: Path, folder: Path, log: list[str]) -> None:
    """Make `folder` the scratch tree: read from its descriptor, regular files and folders
    only (a link or special file the commands made is left out, noted in the log)."""
    scratch_fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    aside = folder.with_name(f".{folder.name}.before-jail")
    try:
        folder.rename(aside)
        try:
            skip = frozenset({SCRATCH_TMP})
            copy_folder(scratch_fd, folder, limit=COPY_LIMIT, log=log, links=False, skip=skip)
        except (NotBeneath, OSError) as exc:
            shutil.rmtree(folder, ignore_errors=True)
            aside.rename(folder)
            message = f"what the case's code left in {folder} could not be copied back: {exc}"
            raise UserError(message) from None
        shutil.rmtree(aside)
    finally:
        os.close(scratch_fd)
