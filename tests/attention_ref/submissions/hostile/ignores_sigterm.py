"""Ignores every signal it may ignore, then spins: only SIGKILL can stop it."""

import signal


def attention(Q, K, V):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGXCPU):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        pass
