"""Export a question set as an Anki package (`attnquiz export`). `notes` turns items into note
contents (pure, no genanki), `mathjax` and `html` write their math and text as Anki shows them,
`models` defines the note types with stable ids, `schedule` carries the review state over,
`package` writes the `.apkg` file whole or not at all, and `deck` puts a whole set together.
"""

from engine.export.anki.deck import Exported, export_anki
from engine.export.anki.package import check_target

__all__ = ["Exported", "check_target", "export_anki"]
