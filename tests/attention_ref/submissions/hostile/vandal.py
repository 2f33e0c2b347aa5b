"""Tries to damage files outside its folder; raises if any attempt worked.

The test fills in PARAMS["targets"] (files it created outside the sandbox: a fake ~/.bashrc,
the store, a bystander file) and PARAMS["folders"] (their folders).
"""

import os

import numpy as np

PARAMS: dict = {}


def append(path: str) -> None:
    with open(path, "a") as target:
        target.write("rm -rf ~\n")


def overwrite(path: str) -> None:
    with open(path, "w") as target:
        target.write("vandalised\n")


def empty(path: str) -> None:
    os.truncate(path, 0)


def open_up(path: str) -> None:
    os.chmod(path, 0o777)


def move(path: str) -> None:
    os.rename(path, path + ".moved")


def delete(path: str) -> None:
    os.unlink(path)


def link(path: str) -> None:
    os.symlink("/etc/passwd", path + ".link")


def drop_file(folder: str) -> None:
    with open(os.path.join(folder, "dropped.txt"), "w") as target:
        target.write("x")


def drop_folder(folder: str) -> None:
    os.mkdir(os.path.join(folder, "dropped"))


def attention(Q, K, V):
    done = []
    # The sandbox's own HOME is fresh and empty: writing there is allowed and harmless.
    with open(os.path.expanduser("~/.bashrc"), "a") as own:
        own.write("harmless inside the sandbox\n")
    plans = [
        (path, attack)
        for path in PARAMS["targets"]
        for attack in (append, overwrite, empty, open_up)
    ]
    plans += [(path, attack) for path in PARAMS["targets"] for attack in (move, delete, link)]
    plans += [
        (folder, attack) for folder in PARAMS["folders"] for attack in (drop_file, drop_folder)
    ]
    for path, attack in plans:
        try:
            attack(path)
            done.append(f"{attack.__name__} {path}")
        except OSError:
            pass
    if done:
        raise RuntimeError(f"vandalised: {done}")
    return np.zeros((Q.shape[0], V.shape[1]))
