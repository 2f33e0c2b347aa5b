"""Checking with a hard time bound, in a warm child process that can be killed at any moment.

`bounded` is the parent's side (one worker per process, a deadline on every check), `process`
one running worker and its pipes, `wire` what crosses the pipe (plain JSON, read back strictly),
and `main` the worker itself (`python -m engine.checking.worker`).
"""
