"""Reads a near-null address through ctypes: the process dies of SIGSEGV."""

import ctypes


def attention(Q, K, V):
    return ctypes.c_int.from_address(8).value
