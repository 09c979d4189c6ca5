"""argparse types for numbers: written as a short finite number and within a range, checked before
any conversion (``--seconds 1e30``, ``--pattern-gap-ms nan`` and 400-digit values are refused while
the arguments are parsed, one line, exit status 2).

``float_in(lo, hi)`` accepts ``lo < x <= hi`` (``lo`` itself with ``lo_closed=True``).
"""
from __future__ import annotations

import argparse
from typing import Callable

from sensekit.errors import ConfigError
from sensekit.safe_read import number_text, short

__all__ = ["float_in"]


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
