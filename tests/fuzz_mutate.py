"""The fuzz suite's mutations (``tests/test_fuzz.py``; ``benchmarks/_fuzz_net.py`` and
``_fuzz_cases.py`` take them too): seeded NumPy, cheap enough for 10,000 cases a target.

``mutate_bytes`` flips, cuts, deletes or repeats spans of a datagram or file and writes odd int32s
at word boundaries; ``mutate_text`` swaps numbers and words for odd tokens (``ODD_TEXT``), inserts
them, deletes spans and flips characters. The same ``rng`` gives the same cases.
"""
from __future__ import annotations

import re
import struct

import numpy as np

__all__ = ["ODD_INT32", "ODD_TEXT", "mutate_bytes", "mutate_text"]

ODD_INT32 = (-4, -1, 0, 1, 3, 6, 2 ** 31 - 1, -(2 ** 31), 65536, 4095)


def mutate_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    """1-4 of: flip bits, cut, delete or repeat a span, write an odd int32 at a word boundary."""
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        n = len(out)
        op = int(rng.integers(0, 6))
        i = int(rng.integers(0, n + 1))
        if op == 0 and n:
            out[min(i, n - 1)] ^= 1 << int(rng.integers(0, 8))
        elif op == 1:
            del out[i:]
        elif op == 2:
            del out[i:i + int(rng.integers(1, 9))]
        elif op == 3:
            out[i:i] = out[i:i + int(rng.integers(1, 17))]
        elif op == 4 and n >= 4:
            w = (min(i, n - 4) // 4) * 4
            out[w:w + 4] = struct.pack(">i", ODD_INT32[int(rng.integers(0, len(ODD_INT32)))])
        else:
            out[i:i] = rng.integers(0, 256, int(rng.integers(1, 9)), dtype=np.uint8).tobytes()
    return bytes(out)


ODD_TEXT = ("nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1e-999", "0x" + "f" * 60, "1" + "0" * 400,
            "9" * 5000, "[" * 6000, "{" * 3000, "-0", "1_000", "\u0000", "\ud800", '"', "'", "\\", "", " ",
            "none", "true", "null", "[]", "{}", "#ff8000", "a=0,0,1,1", "\n", "=", ",", "2147483648")


def mutate_text(text: str, rng: np.random.Generator) -> str:
    """1-3 of: replace a number or a word with an odd token, insert one, delete a span, flip a
    character."""
    for _ in range(int(rng.integers(1, 4))):
        tokens = [m.span() for m in re.finditer(r"[-+]?[0-9][0-9.eE_+-]*|[A-Za-z_]+|\S", text)]
        odd = ODD_TEXT[int(rng.integers(0, len(ODD_TEXT)))]
        op = int(rng.integers(0, 4))
        if op == 0 and tokens:
            a, b = tokens[int(rng.integers(0, len(tokens)))]
            text = text[:a] + odd + text[b:]
        elif op == 1:
            i = int(rng.integers(0, len(text) + 1))
            text = text[:i] + odd + text[i:]
        elif op == 2 and text:
            i = int(rng.integers(0, len(text)))
            text = text[:i] + text[i + int(rng.integers(1, 12)):]
        elif text:
            i = int(rng.integers(0, len(text)))
            text = text[:i] + chr(int(rng.integers(0, 0x250))) + text[i + 1:]
    return text
