"""The learner's editor ($VISUAL, $EDITOR), through click.edit, with one clear error when it
cannot be started."""

from __future__ import annotations

from engine.errors import UsageError


def run_editor(
    text: str | None = None,
    *,
    filename: str | None = None,
    editor: str | None = None,
    extension: str = ".txt",
) -> str | None:
    """What click.edit returns. An editor that cannot be started (a name that is no program
    here) is a UsageError saying so and what to do: click's own exception reached no edge."""
    import os
    import shlex

    import click

    chosen = editor or os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if chosen:
        try:
            shlex.split(chosen)  # as click splits it; its ValueError reached no edge
        except ValueError as exc:
            raise UsageError(
                f"the editor {chosen!r} cannot be read as a command ({exc}); "
                "set $VISUAL or $EDITOR to an editor this machine has"
            ) from None
    try:
        if filename is not None:  # the file itself is edited: nothing is returned
            click.edit(filename=filename, editor=editor, require_save=False)
            return None
        return click.edit(text or "", editor=editor, extension=extension, require_save=False)
    except click.ClickException as exc:
        raise UsageError(
            f"{exc.format_message()}; set $VISUAL or $EDITOR to an editor this machine has"
        ) from None
