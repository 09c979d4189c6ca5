"""Apps played with the body, on the real pose clips (needs the hands extra; skips without it).

- ``edge_snow --silhouette``: the snow settles on the person of ntu_drink_water (the person
  mask of the silhouette stage) and nowhere else, where the edge mode piles it on the room's
  furniture too;
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.capture.spec import open_source

pytestmark = pytest.mark.hands
pytest.importorskip("mediapipe", reason="needs the hands extra: pip install 'sensekit[hands]' "
                                        "(CI runs these in .venv-hands)")


def _clip(shared_data: Path, name: str) -> Path:
    path = shared_data / "video" / "pose" / name
    if not path.is_file():
        pytest.skip(f"pose clip not found at {path}")
    return path


def _run(app: str, clip: Path, steps: int, **options) -> AppHost:
    source = open_source(f"file:{clip}")
    source.open()
    host = AppHost(load(app), source, RunOptions(headless=True, **options))
    for _ in range(steps):
        host.step()
    return host


def test_edge_snow_piles_snow_on_the_silhouette_and_nowhere_else(shared_data):
    """ntu_drink_water: one woman standing in the middle of a room (x 0.43-0.49 of the mirrored
    picture), a table and shelves to the sides. 240 steps: the 103 frames, then the last one."""
    clip = _clip(shared_data, "ntu_drink_water.mp4")
    runs = {}
    for silhouette in (True, False):
        host = _run("edge_snow", clip, 240, silhouette=silhouette)
        try:
            st = host.app.state()
            w = st["edge"].shape[1]
            runs[silhouette] = st["x"][st["settled"]] / w
            if silhouette:
                mask = host.app.silhouette.mask_layer()
                assert mask is not None and 0.01 < host.app.silhouette.area_share < 0.1
        finally:
            host.source.close()
    on_person = (runs[True] > 0.38) & (runs[True] < 0.55)
    assert len(runs[True]) >= 20 and on_person.mean() >= 0.95, np.round(runs[True], 2)
    # the edge mode lets it settle on the room too: most of its snow is away from the person
    assert ((runs[False] < 0.38) | (runs[False] > 0.55)).mean() > 0.5
