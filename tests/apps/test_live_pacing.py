"""A live run is paced by the camera's frames, checked exactly on a camera whose frame times are known.

``ClockedCamera`` is a live source on a ``ManualClock``: frame ``k`` arrives at camera time
``OFFSET + k / FPS``; ``read(timeout)`` moves the clock to the next frame if it comes within
``timeout``, else by ``timeout`` (the wait a real camera would cost); every read also costs
``READ_COST_S`` of clock time, the way processing costs wall time. No wall clock is read, so
the numbers are the same on an idle and on a loaded machine.

What a user notices: game time follows the camera (the loop waits for frames between steps,
it does not run flat out), and ``--frames N`` stops when the Nth camera frame arrived.
"""
from __future__ import annotations

import math

from sensekit.app.host import AppHost
from sensekit.app.options import RunOptions
from sensekit.app.registry import load
from sensekit.capture.base import Item
from sensekit.clock import ManualClock
from tests.apps.synthetic import FPS, SyntheticSource

OFFSET = 0.01                # no frame lands exactly on a step boundary
READ_COST_S = 0.001


class ClockedCamera(SyntheticSource):
    """The synthetic video as a live camera on a ``ManualClock``."""

    is_live = True

    def __init__(self, clock: ManualClock, seconds: float = 10.0) -> None:
        super().__init__(seconds, audio=False)
        self.clock = clock
        self.waited_s = 0.0                       # clock time spent waiting for frames
        self.arrival: list[float] = []            # when each delivered frame arrived
        self._next: Item | None = None

    def read(self, timeout: float | None = None) -> Item | None:
        self.clock.advance(READ_COST_S)
        if self._next is None:
            self._next = super().read()
        due = OFFSET + self._next.index / FPS
        now = self.clock.now()
        if due > now:
            if timeout is not None and due > now + timeout:
                self.clock.advance(timeout)
                self.waited_s += timeout
                return None
            self.clock.set(due)
            self.waited_s += due - now
        item, self._next = self._next, None
        self.arrival.append(self.clock.now())
        return item


def test_live_run_steps_follow_the_camera_clock(tmp_path):
    clock = ManualClock()
    camera = ClockedCamera(clock)
    frames = 45                                           # 3 s of camera at 15 fps
    host = AppHost(load("edge_snow"), camera,
                   RunOptions(headless=True, frames=frames, screenshot=tmp_path / "s.png"), clock=clock)
    result = host.run()
    step = host.app.step_s
    assert result.arrived == frames == len(camera.arrival)          # --frames counts camera frames
    last = OFFSET + (frames - 1) / FPS
    assert camera.arrival[-1] == last                                # ... which came at the camera's rate
    # game time is the step the last frame arrived in: not a step more (flat out), not less
    assert result.frames == math.ceil(last / step)
    assert result.sim_t == result.frames * step
    assert result.sim_t - step < last <= result.sim_t
    # the loop waited for the camera most of the time (it ran flat out before: no waiting)
    assert camera.waited_s > 0.9 * clock.now()
