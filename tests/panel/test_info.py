"""What ``/api/info`` tells the page to show: the inputs the piece's stages use, the overlays
they can draw, and whether the picture is mirrored (one rule: as the stages saw it)."""
from __future__ import annotations

import json
import urllib.request

import pytest


def _info(url: str) -> dict:
    with urllib.request.urlopen(url + "api/info", timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.parametrize("args, inputs, offered, mirrored", [
    (["run", "clapper", "--headless", "--loop"], ["audio"], None, False),
    (["run", "color_ball", "--headless", "--loop"], ["video"], {"region", "box"}, True),
    (["events", "demo", "--clap", "--loop"], ["audio"], None, False),
    (["events", "demo", "--motion", "--mirror", "--loop"], ["video"], {"zones"}, True),
])
def test_the_page_is_told_what_the_piece_uses(process_piece, args, inputs, offered, mirrored):
    info = _info(process_piece(*args).url)
    assert info["inputs"] == inputs
    assert info["mirrored"] is mirrored
    if offered is not None:
        extra = set(info["offered_overlays"]) - {"mask", "edges", "palette"}
        assert extra == offered
