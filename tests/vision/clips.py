"""The developer tracking clips (``../shared/data/video/tracking``) as the vision tests read them."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sensekit.evaluation.vision.evaluate import first_frames, load_clip


def truth_and_frames(shared_data: Path, name: str, n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Clip ``name``'s true boxes (all of them) and its first ``n`` frames (BGR)."""
    clip = load_clip(shared_data / "video" / "tracking", name)
    return clip.truth, first_frames(clip, n)
