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


def _wait(cond: Any) -> None:
    deadline = time.monotonic() + 10
    while not cond() and time.monotonic() < deadline:     # a request applies at the next frame
        time.sleep(0.02)
    assert cond()


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
    _wait(lambda: getattr(stage.tracker, "pool", None) is not None)
    first = stage.tracker.picked.box
    status, body = _post(piece.url, {"step": 1})
    assert status == 200 and body["message"] == "a larger box around the click"
    _wait(lambda: stage.gesture.startswith("larger box"))
    grown = stage.tracker.picked.box
    assert grown[2] * grown[3] > first[2] * first[3]
    status, body = _post(piece.url, {"step": -1})
    assert status == 200
    _wait(lambda: stage.gesture.startswith("smaller box"))
    assert stage.tracker.picked.box[2] * stage.tracker.picked.box[3] < grown[2] * grown[3]
