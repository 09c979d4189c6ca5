"""Color ball: hold up something brightly coloured - the ball follows it; catch the stars.

The camera image fills the window (mirrored, like a mirror). The box shows
where the tracked colour is; the ball goes to its centre, anywhere in the
window, and waits where it was while the colour is lost. Touch a star with
the ball to score. Click on the picture to track a different colour.
Hand input (``--hands`` or key h, needs the hands extra): the ball follows your index
fingertip, and you catch a star by pinching on it.
"""
from __future__ import annotations

import math
from typing import Any

import pygame

from sensekit.app import App, draw as D
from sensekit.app.hand_input import HandInput
from sensekit.app.picking import TrackerPicking
from sensekit.app.convert import bgr_to_packed_rgb, bgr_to_rgb, camera_to_view
from sensekit.events import ColorLost, ColorTracked
from sensekit.runner import Stage
from sensekit.settings import setting
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.targets import Target

BALL_R = 22
STAR_R = 18
DEFAULT_COLOR_BGR = (20, 45, 235)       # orange-red, like the ball in the demo recording


def star_points(cx: float, cy: float, r: float, spin: float) -> list[tuple[float, float]]:
    pts = []
    for i in range(10):
        a = spin + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        pts.append((cx + rr * math.sin(a), cy - rr * math.cos(a)))
    return pts


class ColorBall(TrackerPicking, App, section="color_ball",
                title="colour ball: the ball follows a coloured object; catch the stars"):
    title = "Color Ball"
    instructions = "move a bright object - the ball follows it; catch the stars   click/drag: pick  +/-: tolerance/size"
    needs = frozenset({"video"})
    camera_view: pygame.Rect                      # where the camera is drawn: set in setup()
    window_size = (640, D.TITLE_H + 480 + D.FOOTER_H)
    hands = "switch"
    catch_slack_px = setting(14.0, "a near miss still catches a star (fun beats precision)", unit="px",
                             lo=0, hi=200)
    plus_minus = ("tracker.hue_tolerance", 1)       # colour tracking (hsv); a clicked object uses the model

    def stages(self) -> list[Stage]:
        self.vision = VisionStage(tracker=ColorTracker(bgr_to_packed_rgb(DEFAULT_COLOR_BGR)))
        self.hand = HandInput(self)
        return [self.vision, *self.hand.stages()]

    def setup(self) -> None:
        self.camera_view = pygame.Rect(0, D.TITLE_H, 640, 480)
        self.ball = [float(self.camera_view.centerx), float(self.camera_view.centery)]
        self.box: pygame.Rect | None = None
        self.tracking = False
        self.confidence = 0.0
        self.score = 0
        self.target_bgr = DEFAULT_COLOR_BGR
        v = self.camera_view
        self.reach = (v.centerx - 1.0, v.centery - 1.0, v.centerx + 1.0, v.centery + 1.0)
        self.star = self._new_star()
        self.sprite = pygame.Surface((2 * BALL_R + 8, 2 * BALL_R + 8), pygame.SRCALPHA)
        c = BALL_R + 4
        pygame.draw.circle(self.sprite, (255, 255, 255, 230), (c, c), BALL_R + 3)
        pygame.draw.circle(self.sprite, (40, 140, 255, 150), (c, c), BALL_R)
        pygame.draw.circle(self.sprite, (200, 230, 255, 200), (c - 7, c - 7), 5)
        self.on("color_tracked", self._on_tracked)
        self.on("color_lost", self._on_lost)
        self.hand.setup(on_pinch=self._on_pinch)

    def _new_star(self) -> tuple[float, float]:
        """A star somewhere the player has already reached (plus a margin), away from the ball."""
        v = self.camera_view
        x0, y0, x1, y1 = self.reach
        x0, y0 = max(v.x + 30, x0 - 80), max(v.y + 30, y0 - 80)
        x1, y1 = min(v.right - 30, x1 + 80), min(v.bottom - 30, y1 + 80)
        for _ in range(50):
            x, y = float(self.rng.uniform(x0, x1)), float(self.rng.uniform(y0, y1))
            if math.dist((x, y), self.ball) > 120:
                break
        return (x, y)

    def _on_tracked(self, event: ColorTracked) -> None:
        size = self.host.frame_size
        if size is None or self.hand.active:
            return
        self.tracking = True
        self.confidence = event.confidence
        self.ball = list(camera_to_view(event.cx, event.cy, size, self.camera_view))
        x0, y0, x1, y1 = self.reach
        bx_, by_ = self.ball
        self.reach = (min(x0, bx_), min(y0, by_), max(x1, bx_), max(y1, by_))
        bx, by, bw, bh = event.box
        x0, y0 = camera_to_view(bx, by, size, self.camera_view)
        x1, y1 = camera_to_view(bx + bw, by + bh, size, self.camera_view)
        self.box = pygame.Rect(int(x0), int(y0), max(1, int(x1 - x0)), max(1, int(y1 - y0)))

    def _on_lost(self, event: ColorLost) -> None:
        if self.hand.active:
            return
        self.tracking = False          # the ball stays where it was
        self.confidence = 0.0
        self.box = None

    # -- hand input (sensekit.app.hand_input) --------------------------------
    def key(self, key: int) -> str | None:
        return self.hand.toggle() if key == pygame.K_h else None

    def _follow_hand(self) -> None:
        """The ball goes to the fingertip; the hand's box is drawn like the colour's."""
        point = self.hand.point
        self.tracking = point is not None
        self.box = self.hand.rect
        if point is not None:
            self.ball = list(point)

    def _on_pinch(self, started: bool, xy: tuple[float, float]) -> None:
        """A pinch on the star catches it."""
        if started and math.dist(xy, self.star) < BALL_R + STAR_R + self.catch_slack_px:
            self.score += 1
            self.star = self._new_star()

    def update(self, dt: float) -> None:
        if self.hand.active:
            self._follow_hand()
            return
        if self.tracking and math.dist(self.ball, self.star) < BALL_R + STAR_R + self.catch_slack_px:
            self.score += 1
            self.star = self._new_star()

    def _start(self, target: Target) -> str | None:
        message = super()._start(target)            # the next frame: segments the object, new tracker
        if target.bgr is not None:
            self.target_bgr = target.bgr             # the swatch: the colour the player clicked
        return message

    def levels(self) -> dict[str, float]:
        return {"match %": 100.0 * self.confidence}

    def state(self) -> dict[str, Any]:
        return {"ball": tuple(self.ball), "tracking": self.tracking, "score": self.score,
                "box": tuple(self.box) if self.box else None}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        view = self.camera_view
        cam = self.camera_surface(view.size)
        if cam is None:
            screen.fill(D.DARK, view)
        else:
            screen.blit(cam, view)
        sx, sy = self.star
        pygame.draw.polygon(screen, (255, 230, 60), star_points(sx, sy, STAR_R, self.t))
        pygame.draw.polygon(screen, (120, 80, 0), star_points(sx, sy, STAR_R, self.t), 2)
        if self.box is not None:
            box = self.box.inflate(8, 8)
            pygame.draw.rect(screen, (0, 0, 0), box, 5)
            pygame.draw.rect(screen, (0, 255, 120), box, 3)
            label = D.render("hand" if self.hand.active else "tracking", 18, (0, 0, 0), bold=True)
            tag = label.get_rect(bottomleft=(box.x, box.y - 1)).inflate(6, 2)
            pygame.draw.rect(screen, (0, 255, 120), tag)
            screen.blit(label, label.get_rect(center=tag.center))
        self.draw_picked(screen)
        bx, by = int(self.ball[0]), int(self.ball[1])
        if self.tracking:
            screen.blit(self.sprite, self.sprite.get_rect(center=(bx, by)))
        else:
            pygame.draw.circle(screen, (160, 160, 170), (bx, by), BALL_R, 4)
            lost = "no hand - show one to the camera" if self.hand.active else "colour lost - hold it up to the camera"
            D.banner(screen, lost, color=(60, 60, 80), y=view.bottom - 30, size=24)
        swatch = pygame.Rect(view.right - 40, view.y + 8, 30, 30)
        pygame.draw.rect(screen, bgr_to_rgb(self.target_bgr), swatch)
        pygame.draw.rect(screen, D.WHITE, swatch, 2)
        D.text(screen, "colour", (swatch.x - 6, swatch.centery), size=18, anchor="midright")
        self.hand.draw(screen)
        self.draw_frame(screen, f"stars {self.score}")
