"""One module per command: each opens what it needs, does the work, and returns an exit code."""
