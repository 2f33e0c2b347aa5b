"""What the timed and the rapid-fire drill share: a run of parts against a deadline.

`run` is the pure core (a deadline, each answer saved as it is given, the same time-up and Ctrl-C
handling, one result model), `records` keeps runs and bests in the store, `countdown` shows the
time left live while the learner types, `view` holds what both drills' front ends show alike,
and `check` grades a card as the drills show it. What differs stays in `engine.drills.timed`
(parts asked until right) and `engine.drills.rapid` (questions drawn from templates, asked once).
"""
