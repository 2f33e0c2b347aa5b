"""Export a question set to other spaced-repetition programs (for now: an Anki package).

`anki_notes` turns items into note contents (pure, no genanki), `anki_mathjax` and `anki_html`
write their math and text as Anki shows them, `anki_models` defines the note types,
`anki_schedule` carries the review state over, and `anki_package` writes the `.apkg` file.
"""
