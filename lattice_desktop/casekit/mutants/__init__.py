"""`case mutants`: prove a case's tests by mutating its reference (docs/case-authoring.md,
"Prove the tests by mutation"; the bundled Lattice case's run in docs/lattice-case.md)."""
