"""Did you mean: the names closest to a misspelt one, and the one way the hint is worded.

- ``close_matches(word, names, n=1)``: up to ``n`` of ``names`` most like ``word`` (difflib's
  ratio, at least ``CUTOFF`` = 0.6, best first), none for a word longer
  than ``LONGEST`` (64) characters, so text from the network is never compared at length.
- ``did_you_mean(matches, quote=repr, sep=", ")``: ``"did you mean 'demo'?"``, or ``""`` when
  there is no match; each caller puts it in its own message (``"; ..."``, ``" (...)"``).

Every "unknown name" message of the package (commands, options, apps, modes, recordings,
events, MIDI maps, settings) words its hint here. Cost: one ``difflib`` ratio per name
(microseconds for the short lists it is given). It never fails on any text.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence

#: how alike two names must be (difflib's ratio, 0..1) to be offered; difflib's own default
CUTOFF = 0.6
#: a longer word is no typo of a name and gets no hint (and costs no comparison)
LONGEST = 64


def close_matches(word: str, names: Iterable[str], *, n: int = 1, cutoff: float = CUTOFF) -> list[str]:
    """Up to ``n`` of ``names`` most like ``word``, best first ([] if none is ``cutoff`` alike)."""
    if len(word) > LONGEST:
        return []
    return difflib.get_close_matches(word, list(names), n=n, cutoff=cutoff)


def did_you_mean(matches: Sequence[str], *, quote: Callable[[str], str] = repr, sep: str = ", ") -> str:
    """``"did you mean 'a'?"`` (``quote`` each, joined by ``sep``), or ``""`` for no matches."""
    if not matches:
        return ""
    return f"did you mean {sep.join(quote(m) for m in matches)}?"


def backticked(name: str) -> str:
    """``name`` in backticks, as settings and TOML keys are quoted in messages."""
    return f"`{name}`"
