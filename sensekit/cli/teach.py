"""``sensekit teach``: teach sensekit gestures, sounds and command words of your own, from examples.

    sensekit teach gesture SOURCE --class NAME=START-END [...] --out MODEL.json | --profile venue.toml
    sensekit teach sound --profile venue.toml NAME=FILE[,FILE...] [NAME=...]
    sensekit teach words --profile venue.toml --other FILE[,FILE...] WORD=FILE[,FILE...] [WORD=...]
    sensekit teach sound|words --profile venue.toml --from mic NAME [NAME...]

``gesture`` learns hand shapes from a recording's time ranges (``sensekit.cli._teach_gesture``;
the hands extra); ``sound`` learns sounds from 3-5 audio examples each
(``sensekit.cli._teach_sound``; the voice extra); ``words`` learns command words from recorded
takes (``sensekit.cli._teach_words``; the voice extra). All keep what they learned in the venue
profile, so a replay gives the same events every time. ``sound`` and ``words`` also take their
examples live with ``--from SRC``, prompted one by one (``sensekit.cli._teach_live``).
"""
from __future__ import annotations

from sensekit.cli import Subparsers, _teach_gesture, _teach_sound, _teach_words

__all__ = ["register"]


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("teach", help="teach gestures, sounds and command words of your own by showing them",
                              description="Teach sensekit gestures, sounds and command words of your own from "
                                          "examples.")
    sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    _teach_gesture.add_parser(sub)
    _teach_sound.add_parser(sub)
    _teach_words.add_parser(sub)
