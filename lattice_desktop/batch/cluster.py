"""The way in to the dask backend for the CLI and the app: dask is a core dependency, but an
environment can still lack it (installed with `--no-deps`, or a package removed later), and
then the user reads what to install, not a ModuleNotFoundError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lattice_desktop.errors import UserError

INSTALL_HINT = (
    "grading many submissions needs dask.distributed, which is missing from this Python "
    "environment: pip install 'dask[distributed]>=2024.1' (or reinstall: pip install -e .)"
)


def cluster_grader() -> Callable[..., Any]:
    """`dask_backend.grade_on_cluster`, or a `UserError` naming the package to install."""
    try:
        from lattice_desktop.batch.dask_backend import grade_on_cluster
    except ImportError as exc:
        if (exc.name or "").startswith("lattice_desktop"):
            raise  # our own module is missing: a bug, with its traceback
        raise UserError(f"{INSTALL_HINT} ({exc})") from None
    return grade_on_cluster
