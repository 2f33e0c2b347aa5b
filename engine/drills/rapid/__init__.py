"""Rapid-fire shape drills (`attnquiz drill SET --rapid`): shape questions with fresh dimension
names, against a clock. `file` reads the templates, `shapes` is the algebra that derives each
template's answer, `rounds` draws a round and is its pure core, `view` is the terminal, and
`command` puts them together for the CLI. Rounds are kept with the timed drills' attempts
(`engine.drills.timed.records`), under the rapid drill's own name, one part per question.
"""

from engine.drills.rapid.command import run_rapid
from engine.drills.rapid.file import read_rapid_drill
from engine.drills.rapid.rounds import rapid_drill_problems

__all__ = ["rapid_drill_problems", "read_rapid_drill", "run_rapid"]
