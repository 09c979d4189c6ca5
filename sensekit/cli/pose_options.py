"""Body options for ``sensekit events``: ``--pose``, ``--silhouette`` and the ``pose`` group's
bound options.

    --pose                    pose, pose_lost, arms_up, lean, crouch, jump and step events
                              (MediaPipe Pose; needs the extra: python -m pip install -e '.[hands]')
    --silhouette              a person mask per frame (MediaPipe selfie segmentation, same extra):
                              no events; the panel's ``silhouette`` overlay draws it
    --max-people N            1..10 (default 4)
    --no-pose-smoothing       raw MediaPipe landmarks (no One-Euro smoothing)

The last two are bound to the ``pose`` settings group (``sensekit.vision.pose``), like every
other pose setting through ``--set pose.NAME=VALUE``. Without the extra, ``--pose`` is one
line naming the install command (exit status 2), and so is ``--silhouette``; without them MediaPipe
is never imported.
"""
from __future__ import annotations

import argparse
from typing import Any, Mapping

from sensekit.cli.tuning import section_values, stage_options
from sensekit.runner import Stage

__all__ = ["add_arguments", "build_stages"]


#: the place of these options among the stage providers' (``sensekit.cli.events.stage_providers``)
STAGE_ORDER = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    stage_options(parser, "pose", extra="hands", sections=["pose"], options=[
        ("--pose", {"action": "store_true", "help": "emit pose, pose_lost, arms_up, lean, crouch and jump "
                                                    "events (step with [pose] zones)"}),
        ("--silhouette", {"action": "store_true", "help": "a person mask per frame (selfie segmentation; no "
                                                          "events: the panel draws it)"})])


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Stage]:
    """The pose stage for ``--pose``, the silhouette stage for ``--silhouette`` (MediaPipe is
    imported only then)."""
    chosen = chosen or {}
    out: list[Stage] = []
    if getattr(args, "pose", False):
        from sensekit.vision.pose import PoseStage

        out.append(PoseStage(**section_values(chosen, "pose")))
    if getattr(args, "silhouette", False):
        from sensekit.vision.silhouette import SilhouetteStage

        out.append(SilhouetteStage(**section_values(chosen, "silhouette")))
    return out
