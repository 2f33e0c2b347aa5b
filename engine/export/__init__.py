"""Export a question set to other spaced-repetition programs (for now: an Anki package, `anki`)."""
