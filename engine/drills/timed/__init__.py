"""Timed drills (`attnquiz drill SET --timed`): the five essentials of attention from memory,
against a clock, on the clocked-drill core (`engine.drills.clocked`). `file` reads and checks the
drill file, `run` asks the parts in order (each question until it is right), `grading` judges
answers with the real checkers, `view` is the terminal while the drill runs and `results` the end
of it; `engine.commands.clocked` puts them together for the CLI.
"""
