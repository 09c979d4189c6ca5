"""Steer: vehicles that seek your coloured object, a flock that flees your hand or every person, wanderers.

Five behaviours on top of the (mirrored) camera image; key c cycles them:
- arrive at colour: vehicles arrive at the tracked colour (and wait where it was lost);
- arrive at motion: the same, at the centre of the moving area;
- flock flees hand: a few hundred boids flock; wherever you move, a flow field from the
  motion mask and a flee point at the motion centre scatter them;
- wanderers: vehicles wander and avoid the round obstacles and your coloured object;
- flock flees people: the flock flees every blob the camera sees (each person, with its id
  drawn), so several people at once push it around.
+/- change the vehicles' top speed (``steer.speed``; every constant is a setting). Arriving
vehicles go faster while the target does (``steer.keep_up`` times its smoothed speed, so they
catch a moving object; 0 under ``--preset book``: the book's fixed top speed). Click an
object on the picture, or drag a box around it, to track that object (its outline shows what was taken). Hand input
(``--hands`` or key h, needs the hands extra): your index fingertip is the target, the
obstacle and the point the flock flees, and a pinch is key c (the next behaviour).
Everything is sensekit.steer; this file only wires sensed targets to behaviours and draws.
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
from sensekit.events import Blobs, ColorLost, ColorTracked, Motion, Still
from sensekit.runner import Stage
from sensekit.settings import setting
from sensekit.steer import (Flock, FlowField, Mix, TargetSpeed, Vehicle, arrive, avoid, keep_up_speed,
                            separation, wander)
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

MODES = ("arrive at colour", "arrive at motion", "flock flees hand", "wanderers", "flock flees people")
DEFAULT_COLOR_BGR = (20, 45, 235)        # the orange-red ball of the demo recording
OBSTACLES = [(0.25, 0.35, 38.0), (0.7, 0.3, 30.0), (0.5, 0.7, 44.0), (0.15, 0.8, 26.0)]
KEEP_UP = 2.5                            # chosen leaving one clip out (docs/steer.md)
COLORS = {"vehicle": (255, 210, 60), "boid": (120, 220, 255), "wanderer": (180, 255, 140)}


def triangle(pos: np.ndarray, heading: np.ndarray, size: float) -> list[tuple[float, float]]:
    hx, hy = heading
    x, y = pos
    return [(x + hx * size, y + hy * size),
            (x - hx * size * 0.6 - hy * size * 0.5, y - hy * size * 0.6 + hx * size * 0.5),
            (x - hx * size * 0.6 + hy * size * 0.5, y - hy * size * 0.6 - hx * size * 0.5)]


class Steer(TrackerPicking, App, section="steer",
            title="steer: vehicles, a flock and wanderers steered by what the camera sees"):
    title = "Steer"
    instructions = "move a coloured object or your hand   click/drag: pick object   c: next behaviour   +/- speed"
    needs = frozenset({"video"})
    camera_view: pygame.Rect                      # where the camera is drawn: set in setup()
    window_size = (640, D.TITLE_H + 480 + D.FOOTER_H)
    modes = MODES
    hands = "switch"
    speed = setting(160.0, "top speed of the vehicles and the flock (wanderers: 60 %); keys +/-",
                    unit="px/s", lo=40, hi=400, step=1.2, log_step=True)
    keep_up = setting(KEEP_UP, "arriving vehicles' top speed: at least this many times the target's "
                      "smoothed speed (0: steer.speed alone, the book's)", lo=0.0, hi=5.0, step=0.25)
    vehicles = setting(12, "vehicles that arrive at the target", lo=1, hi=200)
    boids = setting(260, "boids in the flock", lo=1, hi=5000)
    wanderers = setting(10, "wanderers among the obstacles", lo=1, hi=200)
    object_radius = setting(60.0, "the tracked object as an obstacle", unit="px", lo=1, hi=300)
    plus_minus = ("steer.speed", 1)

    def stages(self) -> list[Stage]:
        self.vision = VisionStage(blur_px=5, tracker=ColorTracker(bgr_to_packed_rgb(DEFAULT_COLOR_BGR)),
                                  motion=MotionDetector(), blobs=BlobTracker())
        self.hand = HandInput(self)
        return [self.vision, *self.hand.stages()]

    def setup(self) -> None:
        self.camera_view = v = pygame.Rect(0, D.TITLE_H, 640, 480)
        self.mode = 0
        self.colour_at: np.ndarray | None = None
        self.motion_at: np.ndarray | None = None
        self.field: FlowField | None = None
        self.obstacles = np.array([(v.x + fx * v.w, v.y + fy * v.h) for fx, fy, _ in OBSTACLES])
        self.obstacle_r = np.array([r for *_, r in OBSTACLES])
        self.mix = Mix(wander=1.0, avoid=3.0, separate=1.0)
        self.target_speed = TargetSpeed()
        self.on("color_tracked", self._on_tracked)
        self.on("color_lost", self._on_lost)
        self.on("motion", self._on_motion)
        self.on("still", self._on_still)
        self.on("blobs", self._on_blobs)
        self.people: list[tuple[int, np.ndarray]] = []
        self.hand.setup(on_pinch=self._on_pinch)
        self.restart()

    def restart(self) -> str:
        v, rng = self.camera_view, self.rng
        bounds = (float(v.w), float(v.h))

        def spot() -> tuple[float, float]:
            """A random place in the view, clear of the fixed obstacles."""
            while True:
                p = np.array([rng.uniform(v.x + 40, v.right - 40), rng.uniform(v.y + 40, v.bottom - 40)])
                if (np.hypot(*(self.obstacles - p).T) > self.obstacle_r + 15).all():
                    return float(p[0]), float(p[1])

        self.arrivers = [Vehicle(spot(), max_speed=self.speed, max_force=3 * self.speed, radius=7)
                         for _ in range(self.vehicles)]
        self.wandering = [Vehicle(np.subtract(spot(), v.topleft), rng.normal(0, 40, 2),
                                  max_speed=self.speed * 0.6,
                                  max_force=2 * self.speed, radius=6, edges="wrap", bounds=bounds)
                          for _ in range(self.wanderers)]
        self.angles = [float(a) for a in rng.uniform(0, 2 * math.pi, self.wanderers)]
        self.flock = Flock(rng.uniform(0, bounds, (self.boids, 2)), rng.normal(0, 60, (self.boids, 2)),
                           radius=50, separation_radius=18, max_speed=self.speed,
                           max_force=3 * self.speed, edges="wrap", bounds=bounds,
                           flee_radius=160, weights={"flee": 4.0, "flow": 2.0})
        return "restarted"

    # -- senses -------------------------------------------------------------
    def _to_view(self, cx: float, cy: float) -> np.ndarray | None:
        size = self.host.frame_size
        return None if size is None else np.array(camera_to_view(cx, cy, size, self.camera_view))

    def _on_tracked(self, e: ColorTracked) -> None:
        self.colour_at = self._to_view(e.cx, e.cy)

    def _on_lost(self, e: ColorLost) -> None:
        self.colour_at = None

    def _on_motion(self, e: Motion) -> None:
        x, y, w, h = e.box
        self.motion_at = self._to_view(x + w / 2, y + h / 2) if w and h else None
        result = self.vision.motion_result
        size = self.host.frame_size
        if result is not None and size is not None:
            self.field = FlowField.from_motion(result.mask, cell_px=16,
                                               world_size=(self.camera_view.w, self.camera_view.h))

    def _on_still(self, e: Still) -> None:
        self.motion_at, self.field = None, None

    def _on_blobs(self, e: Blobs) -> None:
        self.people = [(b.id, at) for b in e.blobs if (at := self._to_view(b.cx, b.cy)) is not None]

    # -- hand input (sensekit.app.hand_input) --------------------------------
    def key(self, key: int) -> str | None:
        return self.hand.toggle() if key == pygame.K_h else None

    def _follow_hand(self) -> None:
        """The fingertip stands in for both the coloured object and the motion centre."""
        at = None if self.hand.point is None else np.array(self.hand.point)
        self.colour_at = self.motion_at = at

    def _on_pinch(self, started: bool, xy: tuple[float, float]) -> None:
        if started:
            self.host.say(self.recalibrate())

    # -- the simulation ------------------------------------------------------
    def update(self, dt: float) -> None:
        if self.hand.active:
            self._follow_hand()
        mode = MODES[self.mode]
        if mode in ("arrive at colour", "arrive at motion"):
            target = self.colour_at if mode == "arrive at colour" else self.motion_at
            top = keep_up_speed(self.speed, self.target_speed.update(target, dt), self.keep_up)
            for i, veh in enumerate(self.arrivers):
                veh.max_speed, veh.max_force = top, 3 * top
                # each vehicle aims at its own spot around the target, so they do not pile up
                a = 2 * math.pi * i / len(self.arrivers)
                force = separation(veh, self.arrivers, radius=24) * 1.5
                if target is not None:
                    force = force + arrive(veh, target + 30 * np.array([math.cos(a), math.sin(a)]),
                                           slow_radius=120)
                else:
                    force = force - veh.velocity             # nothing sensed: slow to a stop
                veh.update(force, dt)
        elif mode == "flock flees hand":
            origin = np.array(self.camera_view.topleft, float)
            flee = None if self.motion_at is None else [self.motion_at - origin]
            self.flock.step(dt, flee_points=flee, flow=self.field)
        elif mode == "flock flees people":
            origin = np.array(self.camera_view.topleft, float)
            self.flock.step(dt, flee_points=[at - origin for _, at in self.people] or None)
        else:
            centres, radii = self._obstacles_now()
            for i, w in enumerate(self.wandering):
                local = w.position + self.camera_view.topleft
                wf, self.angles[i] = wander(w, self.angles[i], self.rng, distance=50, radius=25,
                                            jitter=0.5)
                af = avoid(_Shifted(w, local), centres, radii, lookahead=70, buffer=8)
                w.update(self.mix(wander=wf, avoid=af,
                                  separate=separation(w, self.wandering, radius=20)), dt)

    def _obstacles_now(self) -> tuple[np.ndarray, np.ndarray]:
        if self.colour_at is None:
            return self.obstacles, self.obstacle_r
        return (np.vstack([self.obstacles, self.colour_at]),
                np.append(self.obstacle_r, self.object_radius))

    # -- keys -----------------------------------------------------------------
    def recalibrate(self) -> str:
        """Key c: the next behaviour."""
        return self.set_mode(MODES[(self.mode + 1) % len(MODES)])

    def set_mode(self, name: str) -> str:
        self.mode = MODES.index(name)
        self.target_speed.reset()
        return f"behaviour: {name}"

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if changed.keys() & {"vehicles", "boids", "wanderers"}:
            self.restart()
        elif "speed" in changed:
            self._set_speed()

    def _set_speed(self) -> None:
        for veh in self.arrivers:
            veh.max_speed, veh.max_force = self.speed, 3 * self.speed
        for w in self.wandering:
            w.max_speed = self.speed * 0.6
        self.flock.max_speed, self.flock.max_force = self.speed, 3 * self.speed

    def levels(self) -> dict[str, float]:
        """The status line's number for what is on screen: the flock's polarization while a
        flock flies, the vehicles' mean distance to their target while they arrive."""
        mode = MODES[self.mode]
        if mode.startswith("flock"):
            return {"polarization %": 100 * self.flock.polarization}
        gap = self._gap_to_target() if mode.startswith("arrive") else None
        return {} if gap is None else {"gap to target px": gap}

    def _gap_to_target(self) -> float | None:
        """The arriving vehicles' mean distance to the sensed target, px (None: no target yet)."""
        target = self.colour_at if self.mode == 0 else self.motion_at
        if target is None:
            return None
        return float(np.mean([np.hypot(*(v.position - target)) for v in self.arrivers]))

    def state(self) -> dict[str, Any]:
        gap = self._gap_to_target()
        centres, radii = self._obstacles_now()
        clearance = min(float((np.hypot(*(centres - (w.position + self.camera_view.topleft)).T)
                               - radii).min()) for w in self.wandering)
        return {"mode": MODES[self.mode], "mean_gap_to_target": gap,
                "polarization": self.flock.polarization, "wanderer_clearance": clearance,
                "colour_at": None if self.colour_at is None else tuple(map(float, self.colour_at)),
                "motion_at": None if self.motion_at is None else tuple(map(float, self.motion_at)),
                "people": [(blob_id, tuple(map(float, at))) for blob_id, at in self.people]}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        v = self.camera_view
        self.draw_camera(screen, v, dim=(0, 0, 30, 150))
        mode = MODES[self.mode]
        screen.set_clip(v)
        if mode in ("arrive at colour", "arrive at motion"):
            self._draw_arrive(screen, mode)
        elif mode in ("flock flees hand", "flock flees people"):
            self._draw_flock(screen, mode, np.array(v.topleft, float))
        else:
            self._draw_wanderers(screen, np.array(v.topleft, float))
        screen.set_clip(None)
        self.draw_picked(screen)
        D.label(screen, f"c: {mode}", (v.x + 6, v.y + 6), size=22, color=D.ACCENT, bold=True)
        self.hand.draw(screen)
        self.draw_frame(screen, mode)


    def _draw_arrive(self, screen: pygame.Surface, mode: str) -> None:
        """The target (the colour or the motion) and the vehicles arriving at it."""
        target = self.colour_at if mode == "arrive at colour" else self.motion_at
        if target is not None:
            pygame.draw.circle(screen, (255, 80, 80), target.astype(int).tolist(), 12, 3)
        for veh in self.arrivers:
            pygame.draw.polygon(screen, COLORS["vehicle"], triangle(veh.position, veh.heading, 11))

    def _draw_flock(self, screen: pygame.Surface, mode: str, origin: np.ndarray) -> None:
        """The boids, and what they flee: each person (with its id) or the motion."""
        for p, h in zip(self.flock.positions + origin, self.flock.headings):
            pygame.draw.polygon(screen, COLORS["boid"], triangle(p, h, 6))
        if mode == "flock flees people":
            for blob_id, at in self.people:
                pygame.draw.circle(screen, (255, 120, 80), at.astype(int).tolist(), 20, 2)
                D.text(screen, str(blob_id), (float(at[0]), float(at[1])), size=18, color=(255, 200, 160),
                       anchor="center")
        elif self.motion_at is not None:
            pygame.draw.circle(screen, (255, 120, 80), self.motion_at.astype(int).tolist(), 20, 2)

    def _draw_wanderers(self, screen: pygame.Surface, origin: np.ndarray) -> None:
        """The obstacles (the tracked colour among them) and the wanderers avoiding them."""
        centres, radii = self._obstacles_now()
        for k, ((x, y), r) in enumerate(zip(centres, radii)):
            hand = k >= len(self.obstacles)             # the tracked colour, an obstacle too
            pygame.draw.circle(screen, (150, 70, 40) if hand else (90, 90, 120), (int(x), int(y)), int(r))
            pygame.draw.circle(screen, (255, 170, 120) if hand else (200, 200, 230),
                               (int(x), int(y)), int(r), 2)
        for w in self.wandering:
            pygame.draw.polygon(screen, COLORS["wanderer"], triangle(w.position + origin, w.heading, 9))


class _Shifted:
    """A read-only view of a vehicle whose world starts at the view's corner, in window pixels
    (wanderers live in 0..w x 0..h so they can wrap; obstacles are in window pixels)."""

    def __init__(self, vehicle: Vehicle, position: np.ndarray) -> None:
        self.position = position
        self.velocity = vehicle.velocity
        self.max_speed = vehicle.max_speed
        self.radius = vehicle.radius
        self.heading = vehicle.heading
