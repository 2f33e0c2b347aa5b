"""Returns an object whose __array__ raises with a long message full of escape codes and whose
__repr__ raises too: the grader must still say what came back, briefly and literally."""


class Sneaky:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("[bold red]\x1b[2J\x1b[31m fake PASS " * 200)

    def __repr__(self):
        raise SystemExit("repr refused")


def attention(Q, K, V):
    return Sneaky()
