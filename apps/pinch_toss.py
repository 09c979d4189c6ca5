"""Pinch toss: pinch a ball to pick it up, swing and let go to throw it through the hoop (hands extra).

Hand input (needs the hands extra: python -m pip install -e '.[hands]'). Balls rest on the floor
of the (mirrored) camera picture. Pinch your thumb and index finger on a ball to pick it
up; it hangs between your fingertips while you move; open the pinch to let go and it flies
off with your hand's speed, under gravity, bouncing off the walls and the floor. A ball
that drops down through the hoop scores. Without a hand (or without the extra) the balls
just lie there and the picture says what is missing; r puts the balls back.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pygame

from sensekit.app import App, draw as D
from sensekit.app.hand_input import HandInput
from sensekit.runner import Stage
from sensekit.settings import setting

N_BALLS = 5
BALL_R = 18.0
HOOP_W, HOOP_Y = 90.0, 150.0   # hoop width and height of its rim above the view top, px
COLORS = [(255, 120, 80), (120, 220, 255), (180, 255, 140), (255, 210, 60), (230, 150, 255)]


class PinchToss(App, section="pinch_toss",
                title="pinch toss: pick up balls with a pinch and throw them through the hoop"):
    title = "Pinch Toss"
    instructions = "pinch a ball to pick it up, let go to throw it through the hoop   r: balls back"
    needs = frozenset({"video"})
    camera_view: pygame.Rect                      # where the camera is drawn: set in setup()
    window_size = (640, D.TITLE_H + 480 + D.FOOTER_H)
    hands = "always"
    plus_minus = ("pinch_toss.grab_px", 1)        # +: a pinch picks up a ball from further away
    grab_px = setting(44.0, "a pinch this close to a ball's centre picks it up (keys +/-)", unit="px", lo=1,
                      hi=300, step=4.0)
    gravity = setting(900.0, "pull on a flying ball", unit="px/s²", lo=0, hi=10_000)
    bounce = setting(0.6, "speed kept after hitting a wall or the floor", unit="fraction", lo=0, hi=1)
    max_throw = setting(1800.0, "fastest throw", unit="px/s", lo=1, hi=20_000)

    def stages(self) -> list[Stage]:
        self.hand = HandInput(self)
        return self.hand.stages()

    def setup(self) -> None:
        self.camera_view = v = pygame.Rect(0, D.TITLE_H, 640, 480)
        self.hoop = (v.right - 70.0 - HOOP_W / 2, v.y + HOOP_Y)
        self.score = self.throws = 0
        self.held: int | None = None
        self.hand.setup(on_pinch=self._on_pinch)
        self.restart()

    def restart(self) -> str:
        v = self.camera_view
        xs = np.linspace(v.x + 60, v.x + 330, N_BALLS)
        self.p = np.column_stack([xs, np.full(N_BALLS, v.bottom - BALL_R)])
        self.vel = np.zeros((N_BALLS, 2))
        self.held = None
        return "balls back on the floor"

    # -- the hand -------------------------------------------------------------
    def _on_pinch(self, started: bool, xy: tuple[float, float]) -> None:
        if started:
            d = np.hypot(*(self.p - xy).T)
            k = int(np.argmin(d))
            if d[k] <= self.grab_px:
                self.held = k
        elif self.held is not None:
            vx, vy = self.hand.velocity
            speed = math.hypot(vx, vy)
            scale = min(1.0, self.max_throw / speed) if speed > 0 else 1.0
            self.vel[self.held] = (vx * scale, vy * scale)
            self.held = None
            self.throws += 1

    def key(self, key: int) -> str | None:
        return self.hand.toggle() if key == pygame.K_h else None

    # -- the simulation -------------------------------------------------------
    def update(self, dt: float) -> None:
        if self.held is not None and (self.hand.point is None or not self.hand.pinching):
            self.held = None                       # the hand went away: the ball drops
        before = self.p.copy()
        free = np.ones(N_BALLS, bool)
        if self.held is not None:
            free[self.held] = False
            self.p[self.held] = self.hand.point
            self.vel[self.held] = 0.0
        self.vel[free, 1] += self.gravity * dt
        self.p[free] += self.vel[free] * dt
        self._walls(free)
        self._score(before, free)

    def _walls(self, free: np.ndarray) -> None:
        v = self.camera_view
        lo = np.array([v.x + BALL_R, v.y + BALL_R])
        hi = np.array([v.right - BALL_R, v.bottom - BALL_R])
        out_lo, out_hi = (self.p < lo) & free[:, None], (self.p > hi) & free[:, None]
        bounce = self.bounce
        self.vel = np.where(out_lo, np.abs(self.vel) * bounce, np.where(out_hi, -np.abs(self.vel) * bounce, self.vel))
        self.p = np.where(free[:, None], np.clip(self.p, lo, hi), self.p)
        on_floor = free & (self.p[:, 1] >= hi[1] - 0.5)
        self.vel[on_floor, 0] *= 0.96              # rolling friction

    def _score(self, before: np.ndarray, free: np.ndarray) -> None:
        """A free ball whose centre crosses the rim line downwards inside the hoop scores."""
        hx, hy = self.hoop
        crossed = free & (before[:, 1] < hy) & (self.p[:, 1] >= hy) & (np.abs(self.p[:, 0] - hx) < HOOP_W / 2)
        for _k in np.flatnonzero(crossed):
            self.score += 1
            self.host.say("score!")

    def levels(self) -> dict[str, float]:
        return {"throws": float(self.throws)}

    def state(self) -> dict[str, Any]:
        return {"balls": self.p.tolist(), "held": self.held, "score": self.score, "throws": self.throws,
                "hand": self.hand.point, "pinching": self.hand.pinching, "status": self.hand.status}

    # -- drawing --------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        v = self.camera_view
        self.draw_camera(screen, v, dim=(0, 0, 30, 110))
        hx, hy = self.hoop
        pygame.draw.line(screen, (255, 255, 255), (hx + HOOP_W / 2, hy), (hx + HOOP_W / 2 + 30, hy - 60), 4)
        pygame.draw.ellipse(screen, (255, 90, 40), pygame.Rect(hx - HOOP_W / 2, hy - 8, HOOP_W, 16), 5)
        for k, (x, y) in enumerate(self.p):
            color = COLORS[k % len(COLORS)]
            pygame.draw.circle(screen, color, (int(x), int(y)), int(BALL_R))
            if k == self.held:
                pygame.draw.circle(screen, D.WHITE, (int(x), int(y)), int(BALL_R) + 4, 3)
        self.hand.draw(screen, hint=False)
        if self.hand.error or (self.hand.active and self.hand.point is None):
            D.banner(screen, self.hand.status, color=(60, 60, 80), y=v.y + 40, size=22)
        self.draw_frame(screen, f"hoops {self.score}")
