"""The service layer: work that spans grading and storage (grade and store, grading jobs,
harness imports, opening a stored run for the Factory tab). Used by the CLI and the app."""
