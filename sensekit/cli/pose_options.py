"""Pose options for ``sensekit events``: ``--pose`` and the ``pose`` group's bound options.

    --pose                    pose, pose_lost, arms_up, lean, crouch and jump events
                              (MediaPipe Pose; needs the extra: pip install 'sensekit[hands]')
    --max-people N            1..10 (default 4)
    --no-pose-smoothing       raw MediaPipe landmarks (no One-Euro smoothing)

The last two are bound to the ``pose`` settings group (``sensekit.vision.pose``), like every
other pose setting through ``--set pose.NAME=VALUE``. Without the extra, ``--pose`` is one
line naming the install command (exit status 2); without ``--pose`` MediaPipe is never imported.
"""
from __future__ import annotations

import argparse
from typing import Any, Mapping

from sensekit.cli.tuning import add_setting_flags
from sensekit.runner import Stage

__all__ = ["add_arguments", "option_values", "build_stages"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("pose (needs: pip install 'sensekit[hands]')")
    g.add_argument("--pose", action="store_true",
                   help="emit pose, pose_lost, arms_up, lean, crouch and jump events")
    add_setting_flags(g, ["pose"])


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    return {}


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Stage]:
    """The pose stage when ``--pose`` is given, else ``[]``."""
    if not getattr(args, "pose", False):
        return []
    from sensekit.vision.pose import PoseStage     # imports MediaPipe only when asked

    chosen = chosen or {}
    values = {key.split(".", 1)[1]: v for key, v in chosen.items() if key.startswith("pose.")}
    return [PoseStage(**values)]
