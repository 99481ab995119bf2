"""The case kit: start a performance case, build its answers and figures, and prove it.

`scaffold` writes a new case, `build` answers and calibrates it from its reference's fuel,
`check` grades its samples and slips and says what is weak. docs/case-authoring.md walks
through it. What a build shares with the Lattice case's builder (the calibration rule, the
figures writer, the answers, building on a stage) is in `casebuild`, below both.
"""
