"""The bundle, built once for every packaging test (`unpacked`): building it takes minutes."""

from __future__ import annotations

import importlib.util
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bundle_build", ROOT / "packaging" / "build.py")
assert _spec is not None and _spec.loader is not None
build = sys.modules["bundle_build"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


@pytest.fixture(scope="session")
def unpacked(tmp_path_factory) -> Path:
    """The bundle's folder inside the unpacked archive (the top folder holds install.sh)."""
    scratch = tmp_path_factory.mktemp("bundle")
    bundle = build.build(scratch / "dist", scratch / "work")
    print(f"bundle {bundle.size / 1e6:.1f} MB in {bundle.files} files, built in {bundle.seconds:.0f} s")
    target = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(bundle.archive) as tar:
        tar.extractall(target, filter="tar")
    (top,) = target.iterdir()
    return top
