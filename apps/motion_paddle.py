"""Motion paddle: breakout played by waving - move on the left or right of the picture to steer.

The camera image (mirrored) is the backdrop. Motion in the left half of what
you see pushes the paddle left, motion in the right half pushes it right; keep
still and it stops. Bounce the ball into the bricks; three balls per game.
``--preset book`` plays it the book's way: the red channel of the frame difference over a
10-pixel blur, threshold 0x33, and the paddle jumps 20 px toward the side where the motion box
starts (left of the middle: left).
Played with the body (the hands extra; ``--set motion_paddle.steer=lean`` or ``body``): lean your
torso left or right and the paddle runs that way, faster the more you lean (``lean``), or the
paddle stands under your shoulders and follows you as you walk (``body``). Without the extra
the picture says what to install and the paddle goes back to the waving zones.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pygame

from sensekit.app import App, draw as D
from sensekit.app.body_input import BodyInput
from sensekit.events import Motion, Still
from sensekit.settings import Setting, setting
from sensekit.vision.body_events import BODY_THRESHOLDS
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

COLS, ROWS = 10, 5
BRICK_H = 22
PADDLE_W, PADDLE_H = 120, 14
BALL_R = 8
ZONE_TOP = 0.6            # control zones start this far down the picture
BODY_INSTRUCTIONS = {"lean": "lean left or right to run the paddle that way - break all the bricks!",
                     "body": "walk left and right: the paddle stays under your shoulders - break all the bricks!"}
ROW_COLORS = [(235, 64, 52), (255, 140, 0), (255, 210, 0), (80, 220, 120), (60, 160, 255)]


class MotionPaddle(App, section="motion_paddle",
                   title="motion paddle: breakout steered by waving"):
    title = "Motion Paddle"
    instructions = "wave in the lower left or right box to move the paddle - break all the bricks!   +/- sensitivity"
    needs = frozenset({"video"})
    camera_view: pygame.Rect                      # where the camera is drawn: set in setup()
    window_size = (640, D.TITLE_H + 480 + D.FOOTER_H)
    sensitivity = setting(5, "motion sensitivity (keys +/-): each step needs 1.4x less motion", lo=1, hi=9,
                          step=1)
    min_motion = setting(0.01, "fraction of a control zone that must move, at sensitivity 5",
                         unit="fraction", lo=0, hi=1)
    steer: Setting[Literal["zones", "book", "lean", "body"]] = setting(
        "zones", "zones: motion in the lower left/right boxes pushes the paddle; book: it "
        "jumps toward the side where the motion box starts; lean: your torso's lean pushes it; body: "
        "it follows your shoulders (lean and body: the hands extra)", choices=("zones", "book", "lean", "body"))
    lean_full_deg = setting(25.0, "a lean this far from vertical moves the paddle at full speed (lean)",
                            unit="degrees", lo=10, hi=60)
    paddle_speed = setting(14.0, "paddle speed at full push (zones)", unit="px/step", lo=1, hi=100)
    book_step_px = setting(20.0, "paddle jump per frame with motion (book)", unit="px", lo=1, hi=200)
    ball_speed = setting(7.0, "ball speed in the first wave (+1 per wave)", unit="px/step", lo=1, hi=40)
    plus_minus = ("motion_paddle.sensitivity", 1)

    def stages(self) -> list[VisionStage]:
        # control zones: the lower 40% of each half (the bricks' area above is left alone)
        w, h = self.host.source.frame_size or (320, 240)
        top = int(h * ZONE_TOP)
        zones = {"wave_left": (0, top, w // 2, h - top), "wave_right": (w // 2, top, w - w // 2, h - top)}
        self.vision = VisionStage(blur_px=5, motion=MotionDetector(zones_px=zones))
        return [self.vision]

    def setup(self) -> None:
        self.camera_view = pygame.Rect(0, D.TITLE_H, 640, 480)
        self.field = self.camera_view
        self.left = self.right = 0.0
        self.motion_side = 0.0                        # book: -1 left, 1 right, 0 no motion
        self.score = 0
        self.best = 0
        self.history: list[tuple[float, float, float, float]] = []   # t, left, right, paddle x
        self.on("motion", self._on_motion)
        self.on("still", self._on_still)
        self.body = BodyInput(self, max_people=1)
        self._switch_body()
        self.restart()

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "steer" in changed:
            self._switch_body()

    def _switch_body(self) -> None:
        message = self.body.switch(self.steer in ("lean", "body"))
        self.instructions = (BODY_INSTRUCTIONS[self.steer] if self.body_steer
                             else type(self).instructions)
        if self.body.active or self.body.error:
            self.host.say(message)

    @property
    def body_steer(self) -> bool:
        """Steered by the body (and the pose stage is there to do it)."""
        return self.steer in ("lean", "body") and self.body.active

    def restart(self) -> str:
        self.bricks = np.ones((ROWS, COLS), bool)
        self.lives = 3
        self.score = 0
        self.wave = 1
        self.paddle_x = float(self.field.centerx)
        self.paddle_v = 0.0
        self.game_over_at: float | None = None
        self._serve()
        return "new game"

    def _serve(self) -> None:
        self.ball = np.array([self.paddle_x, self.paddle_y - 30.0])
        angle = self.rng.uniform(-0.6, 0.6)
        speed = self.ball_speed + (self.wave - 1)
        self.vel = np.array([speed * math.sin(angle), -speed * math.cos(angle)])
        self.serve_at = self.t + 1.0

    @property
    def paddle_y(self) -> float:
        return self.field.bottom - 60.0

    def _on_motion(self, event: Motion) -> None:
        self.left = float(event.zones.get("wave_left", 0.0))
        self.right = float(event.zones.get("wave_right", 0.0))
        size = self.host.frame_size
        x, _, w, _ = event.box
        self.motion_side = 0.0 if not w or size is None else (-1.0 if x < size[0] / 2 else 1.0)

    def _on_still(self, event: Still) -> None:
        self.left = self.right = 0.0
        self.motion_side = 0.0

    # -- the simulation ------------------------------------------------------
    def push(self) -> float:
        """-1..1: which way the motion pushes the paddle (what the player sees, mirrored)."""
        if self.steer == "book":
            return self.motion_side
        if self.body_steer:
            return self._body_push()
        threshold = self.min_motion * 1.4 ** (5 - self.sensitivity)
        if max(self.left, self.right) < threshold:
            return 0.0
        total = self.left + self.right
        return (self.right - self.left) / total

    def _body_push(self) -> float:
        if self.steer == "body":                      # toward the shoulders, full speed 60 px away
            at = self.body.shoulders
            return 0.0 if at is None else float(np.clip((at[0] - self.paddle_x) / 60.0, -1.0, 1.0))
        lean, dead = self.body.lean_deg, BODY_THRESHOLDS["lean_end_deg"]
        if math.isnan(lean) or abs(lean) < dead:
            return 0.0
        return math.copysign(min(1.0, (abs(lean) - dead) / (self.lean_full_deg - dead)), lean)

    def update(self, dt: float) -> None:
        if self.steer == "book":                      # the book: jump toward the motion, no easing
            self.paddle_v = self.book_step_px * self.push()
        elif self.steer == "body" and self.body_steer:
            self.paddle_v = self.paddle_speed * 2 * self.push()
        else:
            target = self.paddle_speed * self.push()
            self.paddle_v += (target - self.paddle_v) * 0.5
        half = PADDLE_W / 2
        self.paddle_x = float(np.clip(self.paddle_x + self.paddle_v, self.field.x + half, self.field.right - half))
        self.history.append((self.t, self.left, self.right, self.paddle_x))
        if self.game_over_at is not None:
            if self.t - self.game_over_at > 3.0:
                self.best = max(self.best, self.score)
                self.restart()
            return
        if self.t < self.serve_at:                      # ball rides on the paddle
            self.ball[:] = (self.paddle_x, self.paddle_y - BALL_R - PADDLE_H / 2)
            return
        self._move_ball()

    def _move_ball(self) -> None:
        f = self.field
        self.ball += self.vel
        x, y = self.ball
        if x < f.x + BALL_R or x > f.right - BALL_R:
            self.vel[0] = -self.vel[0]
            self.ball[0] = np.clip(x, f.x + BALL_R, f.right - BALL_R)
        if y < f.y + BALL_R:
            self.vel[1] = abs(self.vel[1])
        # bricks: the cell under the ball's leading edge
        bw = f.w / COLS
        top = f.y + 40
        col = int((x - f.x) // bw)
        row = int((y + math.copysign(BALL_R, self.vel[1]) - top) // BRICK_H)
        if 0 <= row < ROWS and 0 <= col < COLS and self.bricks[row, col]:
            self.bricks[row, col] = False
            self.vel[1] = -self.vel[1]
            self.score += 10 * (ROWS - row)
            if not self.bricks.any():
                self.wave += 1
                self.bricks[:] = True
                self._serve()
        # paddle
        if self.vel[1] > 0 and self.paddle_y - PADDLE_H / 2 <= y + BALL_R <= self.paddle_y + PADDLE_H / 2 \
                and abs(x - self.paddle_x) <= PADDLE_W / 2 + BALL_R:
            offset = (x - self.paddle_x) / (PADDLE_W / 2)            # -1..1: where it hit
            speed = float(np.hypot(*self.vel))
            angle = np.clip(offset, -1, 1) * 1.0
            self.vel[:] = (speed * math.sin(angle), -speed * math.cos(angle))
        if y > f.bottom + BALL_R:
            self.lives -= 1
            if self.lives <= 0:
                self.game_over_at = self.t
            else:
                self._serve()

    def levels(self) -> dict[str, float]:
        return {"left": 100 * self.left, "right": 100 * self.right}

    def state(self) -> dict[str, Any]:
        return {"paddle_x": self.paddle_x, "score": self.score, "lives": self.lives,
                "bricks": int(self.bricks.sum()), "push": self.push(), "lean_deg": self.body.lean_deg,
                "body": self.body.status}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        f = self.field
        self.draw_camera(screen, f, dim=(0, 0, 20, 130))
        top = f.y + int(f.h * ZONE_TOP)
        half = f.w // 2
        zones: tuple[tuple[float, pygame.Rect, str], ...] = (
            (self.left, pygame.Rect(f.x + 4, top, half - 8, f.bottom - top - 4), "< wave here"),
            (self.right, pygame.Rect(f.x + half + 4, top, half - 8, f.bottom - top - 4), "wave here >"))
        if self.body_steer:
            self.body.draw(screen)
            zones = ()
            if self.body.landmarks is None:
                D.banner(screen, "step into view", color=(60, 60, 80), y=f.y + 40, size=22)
        elif self.body.error and self.steer in ("lean", "body"):
            D.banner(screen, self.body.error, color=(60, 60, 80), y=f.y + 40, size=18)
        for amount, rect, label in zones:
            lit = min(1.0, amount * 10)
            color = (int(90 + 165 * lit), int(90 + 120 * lit), int(110 - 70 * lit))
            pygame.draw.rect(screen, color, rect, 3 + int(3 * lit), border_radius=10)
            text = (int(175 + 80 * lit), int(175 + 35 * lit), int(195 - 155 * lit))  # readable unlit too
            D.text(screen, label, (rect.centerx, rect.bottom - 8), size=22, color=text, anchor="midbottom",
                   bold=lit > 0)
        bw = f.w / COLS
        for r, c in zip(*np.nonzero(self.bricks)):
            rect = pygame.Rect(int(f.x + c * bw) + 2, f.y + 40 + r * BRICK_H + 2, int(bw) - 4, BRICK_H - 4)
            pygame.draw.rect(screen, ROW_COLORS[r], rect, border_radius=4)
        paddle = pygame.Rect(0, 0, PADDLE_W, PADDLE_H)
        paddle.center = (int(self.paddle_x), int(self.paddle_y))
        pygame.draw.rect(screen, D.WHITE, paddle, border_radius=7)
        push = self.push()
        if push:
            tip = self.paddle_x + math.copysign(PADDLE_W / 2 + 26, push)
            base = self.paddle_x + math.copysign(PADDLE_W / 2 + 8, push)
            pygame.draw.polygon(screen, D.ACCENT, [(tip, self.paddle_y), (base, self.paddle_y - 10),
                                                   (base, self.paddle_y + 10)])
        pygame.draw.circle(screen, (255, 240, 120), self.ball.astype(int).tolist(), BALL_R)
        for i in range(self.lives):
            pygame.draw.circle(screen, (255, 240, 120), (f.x + 16 + i * 20, f.y + 18), 6)
        if self.game_over_at is not None:
            D.banner(screen, f"GAME OVER - {self.score} points", color=(170, 40, 40))
        self.draw_frame(screen, f"score {self.score}   wave {self.wave}")
