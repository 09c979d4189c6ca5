"""Collide: hundreds of bouncing balls, a pixel-perfect star pair, a node garden.

Three scenes on top of the (mirrored) camera image; key c cycles them:
- balls: 400 balls in a grid broad phase; they bounce off each other (contact normals)
  and flash when they touch; your tracked coloured object is a block they bounce off;
- stars: two soft-edged stars, one following your coloured object; the hit test is
  pixel-perfect with an alpha threshold (+/- change it: a low threshold counts the glow);
- node garden: drifting nodes joined by lines when closer than a distance (the grid's
  proximity query); your coloured object pushes them away (+/- change the distance).
Hand input (``--hands`` or key h, needs the hands extra): your hand's box is the object,
your index fingertip leads star B, and a pinch is key c (the next scene).
Everything is sensekit.collide; this file only wires the sensed object in and draws.
Click an object on the picture, or drag a box around it, to track that object.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pygame

from sensekit.app import App, draw as D
from sensekit.app.hand_input import HandInput
from sensekit.app.picking import TrackerPicking
from sensekit.app.convert import bgr_to_packed_rgb, camera_to_view
from sensekit.collide import circle_pairs, hit_test, pairs_within, to_mask
from sensekit.collide.contact import resolve, resolve_box
from sensekit.events import ColorLost, ColorTracked
from sensekit.runner import Stage
from sensekit.settings import setting
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.pipeline import VisionStage

SCENES = ("balls", "stars", "node garden")
DEFAULT_COLOR_BGR = (20, 45, 235)        # the orange-red ball of the demo recording
STAR_PX = 120
FLASH_S = 0.12


def star_rgba(size: int, rot: float, color: tuple[int, int, int]) -> np.ndarray:
    """An RGBA star whose alpha fades from 255 in the body to 0 over a soft glow."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    c = (size - 1) / 2
    ang = np.arctan2(yy - c, xx - c) - rot
    r = np.hypot(xx - c, yy - c) / (size / 2)
    # star outline radius as a function of angle: five points
    edge = 0.45 + 0.45 * np.abs(np.cos(2.5 * ang)) ** 3
    alpha = np.clip((edge + 0.12 - r) / 0.12, 0, 1) ** 1.5 * 255       # 0.12 wide glow
    img = np.zeros((size, size, 4), dtype=np.uint8)
    img[..., :3] = color
    img[..., 3] = alpha.astype(np.uint8)
    return img


def rgba_surface(img: np.ndarray) -> pygame.Surface:
    h, w = img.shape[:2]
    return pygame.image.frombuffer(np.ascontiguousarray(img).tobytes(), (w, h), "RGBA").copy()


class Collide(TrackerPicking, App, section="collide",
              title="collide: bouncing balls, a pixel-perfect star pair, a node garden"):
    title = "Collide"
    instructions = "move a coloured object   click/drag: pick object   c: next scene   +/- threshold / distance"
    needs = frozenset({"video"})
    camera_view: pygame.Rect                      # where the camera is drawn: set in setup()
    window_size = (640, D.TITLE_H + 480 + D.FOOTER_H)
    modes = SCENES
    hands = "switch"
    alpha_threshold = setting(128, "star pixels count from this alpha (stars; low: the glow counts)",
                              lo=1, hi=255, step=32)
    near_px = setting(70.0, "nodes closer than this are linked (node garden)", unit="px", lo=20, hi=200,
                      step=10)
    balls = setting(400, "balls in the balls scene", lo=1, hi=5000)
    nodes = setting(90, "nodes in the node garden", lo=2, hi=2000)
    restitution = setting(0.95, "speed kept when two balls bounce", unit="fraction", lo=0, hi=1)

    def stages(self) -> list[Stage]:
        self.vision = VisionStage(blur_px=5, tracker=ColorTracker(bgr_to_packed_rgb(DEFAULT_COLOR_BGR)))
        self.hand = HandInput(self)
        return [self.vision, *self.hand.stages()]

    def setup(self) -> None:
        self.camera_view = pygame.Rect(0, D.TITLE_H, 640, 480)
        self.scene = 0
        self.box: tuple[float, float, float, float] | None = None     # tracked object, view px
        self.stars = [star_rgba(STAR_PX, 0.0, (255, 220, 60)), star_rgba(STAR_PX, 0.6, (120, 200, 255))]
        self.star_surfaces = [rgba_surface(s) for s in self.stars]
        self._build_masks()
        self.on("color_tracked", self._on_tracked)
        self.on("color_lost", self._on_lost)
        self.hand.setup(on_pinch=self._on_pinch)
        self.restart()

    def _build_masks(self) -> None:
        self.masks = [to_mask(s, alpha_threshold=self.alpha_threshold) for s in self.stars]

    def restart(self) -> str:
        v, rng = self.camera_view, self.rng
        n, m = self.balls, self.nodes
        self.r = rng.uniform(4.0, 10.0, n)
        self.p = np.column_stack((rng.uniform(v.x + 12, v.right - 12, n), rng.uniform(v.y + 12, v.bottom - 12, n)))
        self.vel = rng.normal(0, 70, (n, 2))
        self.flash = np.zeros(n)
        self.contacts = 0
        self.node_xy = np.column_stack((rng.uniform(v.x, v.right, m), rng.uniform(v.y, v.bottom, m)))
        self.node_v = rng.normal(0, 25, (m, 2))
        self.links = np.zeros((0, 2), dtype=np.int64)
        self.star_hit = False
        self.star_pos = [np.array([v.centerx - STAR_PX - 20.0, v.centery - STAR_PX / 2]),
                         np.array([v.centerx + 20.0, v.centery - STAR_PX / 2])]
        return "restarted"

    # -- senses -------------------------------------------------------------
    def _on_tracked(self, e: ColorTracked) -> None:
        size = self.host.frame_size
        if size is None:
            return
        x, y, w, h = e.box
        x0, y0 = camera_to_view(x, y, size, self.camera_view)
        x1, y1 = camera_to_view(x + w, y + h, size, self.camera_view)
        self.box = (x0, y0, max(x1, x0 + 1), max(y1, y0 + 1))

    def _on_lost(self, e: ColorLost) -> None:
        self.box = None

    # -- hand input (sensekit.app.hand_input) --------------------------------
    def key(self, key: int) -> str | None:
        return self.hand.toggle() if key == pygame.K_h else None

    def _follow_hand(self) -> None:
        """The hand's box is the object (star B follows its centre, so centre it on the fingertip)."""
        self.box = self.hand.box
        point = self.hand.point
        if self.box is not None and point is not None and SCENES[self.scene] == "stars":
            x, y = point
            self.box = (x - 1, y - 1, x + 1, y + 1)

    def _on_pinch(self, started: bool, xy: tuple[float, float]) -> None:
        if started:
            self.host.say(self.recalibrate())

    # -- the simulation ------------------------------------------------------
    def update(self, dt: float) -> None:
        if self.hand.active:
            self._follow_hand()
        self.flash = np.maximum(self.flash - dt, 0.0)
        scene = SCENES[self.scene]
        if scene == "balls":
            self._balls(dt)
        elif scene == "stars":
            self._stars(dt)
        else:
            self._garden(dt)

    def _balls(self, dt: float) -> None:
        v = self.camera_view
        self.p += self.vel * dt
        lo = np.array([v.x, v.y], float) + self.r[:, None]
        hi = np.array([v.right, v.bottom], float) - self.r[:, None]
        out_lo, out_hi = self.p < lo, self.p > hi
        self.vel = np.where(out_lo, np.abs(self.vel), np.where(out_hi, -np.abs(self.vel), self.vel))
        self.p = np.clip(self.p, lo, hi)
        pairs = circle_pairs(self.p, self.r)                       # the grid broad phase
        self.contacts = len(pairs)
        if len(pairs):
            self.p, self.vel = resolve(self.p, self.vel, self.r, pairs, restitution=self.restitution)
            self.flash[pairs.ravel()] = FLASH_S
        if self.box is not None:
            self.p, self.vel, hit = resolve_box(self.p, self.vel, self.r, self.box, restitution=1.0)
            self.flash[hit] = FLASH_S

    def _stars(self, dt: float) -> None:
        v = self.camera_view
        if self.box is not None:                                   # star B follows the object
            cx, cy = (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2
            target = np.array([cx - STAR_PX / 2, cy - STAR_PX / 2])
        else:                                                      # or drifts back and forth
            target = np.array([v.centerx - STAR_PX / 2 + 110 * math.sin(self.t * 0.8), v.centery - STAR_PX / 2])
        self.star_pos[1] += (target - self.star_pos[1]) * min(1.0, 8 * dt)
        a, b = self.star_pos
        self.star_hit = hit_test(self.masks[0], (int(a[0]), int(a[1])), self.masks[1], (int(b[0]), int(b[1])))

    def _garden(self, dt: float) -> None:
        v = self.camera_view
        self.node_xy += self.node_v * dt
        if self.box is not None:                                   # the object pushes nodes away
            cx, cy = (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2
            d = self.node_xy - (cx, cy)
            dist = np.hypot(d[:, 0], d[:, 1]) + 1e-6
            near = dist < 90
            self.node_v[near] += d[near] / dist[near, None] * 300 * dt
        speed = np.hypot(*self.node_v.T)[:, None]
        self.node_v = np.where(speed > 60, self.node_v * 60 / np.maximum(speed, 1e-9), self.node_v)
        size = np.array([v.w, v.h], float)
        self.node_xy = np.mod(self.node_xy - v.topleft, size) + v.topleft
        self.links = pairs_within(self.node_xy, self.near_px)        # the grid's proximity query

    # -- keys -----------------------------------------------------------------
    def recalibrate(self) -> str:
        """Key c: the next scene."""
        return self.set_mode(SCENES[(self.scene + 1) % len(SCENES)])

    def set_mode(self, name: str) -> str:
        self.scene = SCENES.index(name)
        return f"scene: {name}"

    def plus_minus_setting(self) -> tuple[str, int]:
        """+/-: the link distance in the node garden, the alpha threshold elsewhere."""
        return ("collide.near_px", 1) if SCENES[self.scene] == "node garden" else ("collide.alpha_threshold", 1)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "alpha_threshold" in changed:
            self._build_masks()
        if changed.keys() & {"balls", "nodes"}:
            self.restart()

    def levels(self) -> dict[str, float]:
        """The HUD's number for the scene on screen (another scene's would be a stale count)."""
        scene = SCENES[self.scene]
        if scene == "balls":
            return {"contacts": float(self.contacts)}
        return {"links": float(len(self.links))} if scene == "node garden" else {}

    def state(self) -> dict[str, Any]:
        return {"scene": SCENES[self.scene], "contacts": self.contacts, "flashing": int((self.flash > 0).sum()),
                "star_hit": bool(self.star_hit), "alpha_threshold": self.alpha_threshold,
                "links": int(len(self.links)), "object": self.box}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        v = self.camera_view
        self.draw_camera(screen, v, dim=(0, 0, 30, 160))
        scene = SCENES[self.scene]
        screen.set_clip(v)
        if self.box is not None and scene != "stars":
            x0, y0, x1, y1 = (int(c) for c in self.box)
            pygame.draw.rect(screen, (255, 140, 60), (x0, y0, x1 - x0, y1 - y0), 3)
        if scene == "balls":
            lit = self.flash > 0
            for (x, y), r, hot in zip(self.p.astype(int).tolist(), self.r, lit):
                pygame.draw.circle(screen, (255, 90, 70) if hot else (90, 170, 255), (x, y), int(r))
        elif scene == "stars":
            for surf, pos in zip(self.star_surfaces, self.star_pos):
                screen.blit(surf, (int(pos[0]), int(pos[1])))
            if self.star_hit:
                D.banner(screen, "HIT", color=(200, 40, 40), y=v.y + 60)
            D.text(screen, f"alpha threshold {self.alpha_threshold} (+/-)", (v.centerx, v.bottom - 14),
                   size=22, anchor="midbottom", color=D.ACCENT)
        else:
            pts = self.node_xy.astype(int)
            if len(self.links):
                d = np.hypot(*(self.node_xy[self.links[:, 0]] - self.node_xy[self.links[:, 1]]).T)
                shade = (90 + 165 * (1 - d / self.near_px)).astype(int)       # nearer: brighter
                for (i, j), s in zip(self.links.tolist(), shade.tolist()):
                    pygame.draw.line(screen, (s, s, 255), pts[i].tolist(), pts[j].tolist(), 1)
            for x, y in pts.tolist():
                pygame.draw.circle(screen, (230, 230, 255), (x, y), 3)
        screen.set_clip(None)
        self.draw_picked(screen)
        D.label(screen, f"c: {scene}", (v.x + 6, v.y + 6), size=22, color=D.ACCENT, bold=True)
        self.hand.draw(screen)
        score = {"balls": f"contacts {self.contacts}", "stars": "hit!" if self.star_hit else "apart",
                 "node garden": f"links {len(self.links)}"}[scene]
        self.draw_frame(screen, score)
