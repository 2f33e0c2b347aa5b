"""Question banks: YAML files in `quizzes/` parsed into strict, versioned models."""
