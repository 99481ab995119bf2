"""What every case build shares, none of it needing the grader: the calibration rule, the
figures it writes into case.toml, the expected answers, and building on a stage (so a build
is reproducible and `--check` can list what it would change).

The case kit (`casekit/build.py`, `lattice-desktop case build`) and the bundled Lattice
case's builder (`lattice/case_builder.py`) are two instances of it: they differ only in how
they make inputs and measure fuel.
"""
