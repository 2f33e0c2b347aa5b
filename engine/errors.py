"""Errors by audience.

Each error carries a message meant for one reader: a bank author (`BankError`), a learner who typed
something the checker cannot read (`AnswerError`), or the user of the command line (`UsageError`,
`StoreError`). Only the CLI turns them into exit codes and one-line messages.
"""

from __future__ import annotations


class AttnquizError(Exception):
    """Base class: the message is complete and safe to show as one line."""


class UsageError(AttnquizError):
    """Bad command-line input: an unknown set or item, an unreadable file, a bad option."""


class BankError(AttnquizError):
    """A question bank or drill file that its author must fix.

    `problems` holds every `PATH:LINE: message` found, so that lint can report them all at once.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            problems[0]
            if len(problems) == 1
            else f"{problems[0]} (and {len(problems) - 1} more problems; run `attnquiz lint`)"
        )


class StoreError(AttnquizError):
    """The review store cannot be used (damaged, foreign, locked, or from a newer attnquiz)."""


class AnswerError(AttnquizError):
    """A typed answer the checker cannot read. The message tells the learner what to change."""
