"""``POST /api/resize``: the last click's next larger / smaller box, on the run's thread, through
``VisionStage.track`` (a ``sensekit events`` piece: ``StagesControl``); bad steps and a resize
before any click get one sentence."""
from __future__ import annotations

import time
from typing import Any

import aiohttp

from sensekit.vision.targets import Target
from tests.panel.test_server import _frames, run

SKY = (320 - 75, 35)          # the painting's sky in the demo (the stage does not mirror)


def _post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    async def go() -> tuple[int, dict[str, Any]]:
        async with aiohttp.ClientSession() as s, s.post(url + "api/resize", json=body) as r:
            return r.status, await r.json()
    out: tuple[int, dict[str, Any]] = run(go())
    return out


def _picked(stage: Any, gesture: str = "") -> tuple[int, int, int, int]:
    """The box the stage's tracker picked, once it has one from a click (and ``gesture`` says
    what was asked): a request applies at the next frame, on the run's thread."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        tracker = stage.tracker                      # read once: the run's thread may replace it
        picked = getattr(tracker, "picked", None)
        if picked is not None and getattr(tracker, "pool", None) is not None and stage.gesture.startswith(gesture):
            box: tuple[int, int, int, int] = picked.box
            return box
        time.sleep(0.02)
    raise AssertionError(f"no box picked ({gesture or 'a click'}) within 10 s; gesture {stage.gesture!r}")


def test_resize_steps_the_clicks_box_and_refuses_what_it_cannot_do(thread_piece):
    piece = thread_piece()
    run(_frames(piece.url, 2))
    stage = piece.runner.stages[0]
    status, body = _post(piece.url, {"step": 1})
    assert status == 400 and body["error"].startswith("click an object first")
    for bad in (2, 0, "1", True, None):
        status, body = _post(piece.url, {"step": bad})
        assert status == 400 and "`step` must be 1 (larger) or -1 (smaller)" in body["error"], bad

    # the piece tracks a colour (hsv: a click there picks a colour, no box); a click on the object
    # as an app's click is (the model method)
    stage.track(Target.click(*SKY), method="model")
    first = _picked(stage)
    status, body = _post(piece.url, {"step": 1})
    assert status == 200 and body["message"] == "a larger box around the click"
    grown = _picked(stage, "larger box")
    assert grown[2] * grown[3] > first[2] * first[3]
    status, body = _post(piece.url, {"step": -1})
    assert status == 200
    shrunk = _picked(stage, "smaller box")
    assert shrunk[2] * shrunk[3] < grown[2] * grown[3]
