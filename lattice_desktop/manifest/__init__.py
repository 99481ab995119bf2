"""Case and submission manifests: TOML files read into checked, immutable values."""

from lattice_desktop.manifest.case import CaseEntry, CaseManifest, Contract, Sandbox, load_case
from lattice_desktop.manifest.submission import Submission, load_submission

__all__ = [
    "CaseEntry",
    "CaseManifest",
    "Contract",
    "Sandbox",
    "Submission",
    "load_case",
    "load_submission",
]
