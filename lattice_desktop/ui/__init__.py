"""The Qt face of Lattice Desktop. The only package that may import PySide6 or pyqtgraph."""
