"""Printing text that came from files or users (notes, names) without letting it drive the terminal.

``printable(text)`` replaces control characters (ANSI escapes, carriage
returns, backspaces, DEL, C1 controls) and invisible format characters that
reorder or hide text (bidi overrides, zero-width spaces) with visible escapes
such as ``\\x1b`` or ``\\u202e``; ``keep_newlines=True`` keeps ``\\n`` (tabs
always become a space). Cost: one pass over the string.
"""
from __future__ import annotations

import unicodedata

_KEEP_FORMAT = {"\u200c", "\u200d"}      # zero-width (non-)joiners: parts of emoji and scripts


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control or invisible format character shown as an escape."""
    out = []
    for ch in str(text):
        if ch == "\n" and keep_newlines:
            out.append(ch)
        elif ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Zl", "Zp") or (
                unicodedata.category(ch) == "Cf" and ch not in _KEEP_FORMAT):
            out.append(_escape(ch))
        else:
            out.append(ch)
    return "".join(out)
