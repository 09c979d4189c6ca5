"""The CDnet highway clip as every benchmark reads it: one folder, one check, the same two halves.

``open_highway(data)`` reads ``data/video/motion/cdnet_highway_a`` (frames 470-769, their
ground-truth masks and the region of interest; ``sensekit.evaluation.vision.motion_scoring.load_cdnet``)
and exits with a one-line message when the folder is missing or holds fewer than
``2 * HALF`` frames. ``FIRST`` (frames 470-619) is where constants are chosen, ``SECOND``
(620-769) where they are reported. ``resized(clip, w, h)`` is the clip's frames at another
size (the cost runs time 640x480). Used by ``benchmarks/motion_eval.py`` and
``benchmarks/blob_eval.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.motion_scoring import CdnetClip, load_cdnet

HIGHWAY = Path("video") / "motion" / "cdnet_highway_a"
HALF = 150                                    # frames in each half
FIRST, SECOND = range(0, HALF), range(HALF, 2 * HALF)


def open_highway(data: Path) -> CdnetClip:
    """The highway clip under ``data`` (the shared data folder), or exit 2 with the reason."""
    folder = Path(data) / HIGHWAY
    if not folder.is_dir():
        _fail(f"CDnet highway not found at {folder} (use --data)")
    clip = load_cdnet(folder)
    if len(clip.frames) < 2 * HALF:
        _fail(f"expected {2 * HALF} frames in {folder}, found {len(clip.frames)}")
    return clip


def _fail(message: str) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(2)


def resized(clip: CdnetClip, width: int, height: int) -> list[np.ndarray]:
    """The clip's frames at ``width`` x ``height`` (bilinear)."""
    return [cv2.resize(f, (width, height), interpolation=cv2.INTER_LINEAR) for f in clip.frames]
