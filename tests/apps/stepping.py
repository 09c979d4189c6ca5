"""Stepping an app host in tests."""
from __future__ import annotations


def step_to_next_frame(host) -> None:
    """Step until the run has processed a new frame: a pick applies at the next frame
    (``VisionStage.track``), which a step at 60 Hz does not always bring."""
    before = host.runner.latest_frame.index
    for _ in range(4):
        host.step()
        if host.runner.latest_frame.index != before:
            return
    raise AssertionError("no new frame in 4 steps")
