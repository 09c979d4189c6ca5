"""argparse types for numbers: written as a short finite number and within a range, checked before
any conversion (``--seconds 1e30``, ``--pattern-gap-ms nan`` and 400-digit values are refused while
the arguments are parsed, one line, exit status 2).

``float_in(lo, hi)`` accepts ``lo < x <= hi`` (``lo`` itself with ``lo_closed=True``);
``int_in(lo, hi)`` a whole number ``lo <= n <= hi``.
"""
from __future__ import annotations

import argparse
from typing import Callable

from sensekit.errors import ConfigError
from sensekit.safe_read import number_text, short

__all__ = ["float_in", "int_in"]


def float_in(lo: float, hi: float, *, lo_closed: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: the text as a float in ``(lo, hi]`` (``[lo, hi]`` if ``lo_closed``)."""
    span = f"{'[' if lo_closed else '('}{lo:g}, {hi:g}]"

    def convert(text: str) -> float:
        try:
            v = number_text(text, what="the value")
        except ConfigError:
            v = None
        if v is None or v > hi or v < lo or (v == lo and not lo_closed):
            raise argparse.ArgumentTypeError(f"must be a number in {span}, got {short(text)}")
        return v

    convert.__name__ = "number"
    return convert


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: the text as a whole number in ``[lo, hi]`` (at most 12 digits read)."""
    def convert(text: str) -> int:
        s = text.strip()
        digits = s.lstrip("+-")
        if not (0 < len(digits) <= 12 and digits.isascii() and digits.isdigit()) or len(s) - len(digits) > 1:
            raise argparse.ArgumentTypeError(f"must be a whole number {lo}..{hi}, got {short(text)}")
        n = int(s)
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"must be a whole number {lo}..{hi}, got {short(text)}")
        return n

    convert.__name__ = "whole number"
    return convert
