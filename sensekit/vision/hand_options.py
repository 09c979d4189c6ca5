"""Hand options for ``sensekit events``: ``add_arguments(parser)`` and ``build_stages``.

    --hands                   hand, gesture, pinch and hand_lost events (MediaPipe; needs
                              the extra: pip install 'sensekit[hands]')
    --hand-model M            lite (default) | full
    --max-hands N             1 or 2 (default 2)
    --no-hand-smoothing       raw MediaPipe landmarks (no One-Euro smoothing)

``--mirror`` (from the vision options) also flips what the hand stage sees. Every other
setting is in ``sensekit.vision.hands.HandSettings``. Without the extra, ``--hands`` is one
line naming the install command (exit status 2); without ``--hands`` nothing is imported.
"""
from __future__ import annotations

import argparse
from typing import Any

from sensekit.runner import Stage

__all__ = ["add_arguments", "build_stages"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("hands (needs: pip install 'sensekit[hands]')")
    g.add_argument("--hands", action="store_true", help="emit hand, gesture, pinch and hand_lost events")
    g.add_argument("--hand-model", choices=("lite", "full"), default="lite",
                   help="MediaPipe model size (default %(default)s)")
    g.add_argument("--max-hands", type=int, choices=(1, 2), default=2, help="hands to follow (default 2)")
    g.add_argument("--no-hand-smoothing", action="store_true", help="raw landmarks, no One-Euro smoothing")


def build_stages(args: argparse.Namespace, source: Any) -> list[Stage]:
    """The hand stage when ``--hands`` is given, else ``[]``."""
    if not getattr(args, "hands", False):
        return []
    from sensekit.vision.hands import HandStage     # imports MediaPipe only when asked

    return [HandStage(model=getattr(args, "hand_model", "lite"), max_hands=getattr(args, "max_hands", 2),
                      smoothing=not getattr(args, "no_hand_smoothing", False),
                      mirror=bool(getattr(args, "mirror", False)))]
