"""Reading a still for a benchmark: ``cv2.imread`` returns None for a file it cannot read, which
the benchmarks would only notice later as an attribute error; this says which file."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def read_image(path: Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The image at ``path`` (BGR, or grey with ``cv2.IMREAD_GRAYSCALE``); SystemExit naming it if unreadable."""
    image = cv2.imread(str(path), flags)
    if image is None:
        raise SystemExit(f"cannot read the image {path}")
    return np.asarray(image)
