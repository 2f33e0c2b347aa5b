"""Rapid-fire shape drills (`attnquiz drill SET --rapid`): shape questions with fresh dimension
names, against a clock, on the clocked-drill core (`engine.drills.clocked`). `file` reads the
templates, `shapes` is the algebra that derives each template's answer, `rounds` draws a round
and asks each question once, `view` is the terminal; `engine.commands.clocked` puts them
together for the CLI. Rounds are kept with the timed drills' attempts
(`engine.drills.clocked.records`), under the rapid drill's own name, one part per question.
"""
