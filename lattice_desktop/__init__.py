"""Lattice Desktop: an offline grader for WebAssembly performance cases."""

__version__ = "0.1.0"
