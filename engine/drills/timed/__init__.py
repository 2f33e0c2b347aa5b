"""Timed drills (`attnquiz drill SET --timed`): the five essentials of attention from memory,
against a clock. `file` reads and checks the drill file, `run` is the pure core that asks the parts
in order and holds the result of a run, `grading` judges answers with the real checkers, `records`
keeps attempts and bests in the store (the rapid drill's rounds too), `view` is the terminal while
the drill runs and `results` the end of it; `command` puts them together for the CLI.
"""

from engine.drills.timed.command import run_timed
from engine.drills.timed.file import read_timed_drill
from engine.drills.timed.grading import timed_drill_problems
from engine.drills.timed.records import TimedRecords

__all__ = ["TimedRecords", "read_timed_drill", "run_timed", "timed_drill_problems"]
