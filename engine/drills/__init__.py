"""Derivation drills: a file format, loading with line numbers, and a step-by-step runner.

A drill walks the learner through one derivation (the variance of q·k, the softmax Jacobian, ...)
one line at a time; every line is judged by `engine.checking.derivation.bounded.check_step`
(SymPy in the time-bounded checking worker). Finishing a drill is one review of the card
`drill-<id>` in the set's schedule.
"""

# Drills are scheduled as cards of their set, with this prefix before the drill's id.
CARD_PREFIX = "drill-"
