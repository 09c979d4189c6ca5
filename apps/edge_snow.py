"""Edge snow: snow falls on your (mirrored) picture and settles on every horizontal edge.

Flakes drift down; one that reaches a horizontal edge (a shoulder, a hand held
flat, a shelf) stops there, and later flakes pile up on top of it. Move and
the snow under you slides off. +/- changes how strong an edge must be.
``--silhouette`` (the hands extra): the snow lands on you instead - on your head, shoulders and
arms, wherever the person mask (MediaPipe selfie segmentation) starts - and nowhere else.
``--preset book``: the book's edges (the ``[0, 4, -4]`` kernel, a 4-pixel blur, threshold 0x22)
read on the red channel only, as its ``threshold`` call does.
"""
from __future__ import annotations

from typing import Any, Literal

import cv2
import numpy as np
import pygame

from sensekit.app import App, draw as D
from sensekit.app.convert import array_to_surface
from sensekit.settings import Setting, setting
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.silhouette import SilhouetteStage

EDGE_TINT = (60.0, 40.0, 0.0, 0.0)               # BGR added on edge pixels: frost


class EdgeSnow(App, section="edge_snow",
               title="edge snow: snow settles on the horizontal edges of your picture"):
    title = "Edge Snow"
    instructions = "stand still and let it snow on you - move to shake it off    +/- edge sensitivity  r clear"
    needs = frozenset({"video"})
    camera_view: pygame.Rect                      # where the camera is drawn: set in setup()
    window_size = (640, D.TITLE_H + 480 + D.FOOTER_H)
    spawn_per_step = setting(8, "new flakes per step", unit="flakes", lo=0, hi=200)
    max_flakes = setting(5000, "most flakes at once", unit="flakes", lo=1, hi=100_000)
    max_pile = setting(12, "flakes a pile can stack before the top ones slide", unit="flakes", lo=1, hi=100)
    melt_s = setting(25.0, "settled flakes melt after this long", unit="s", lo=0.5, hi=3600)
    edge_channel: Setting[Literal["any", "red"]] = setting(
        "any", "an edge pixel is one whose edge value passes the threshold in any "
        "channel, or in the red channel only (the book's threshold call)", choices=("any", "red"))
    plus_minus = ("vision.edge_threshold", -1)

    def stages(self) -> list[VisionStage | SilhouetteStage]:
        # the edge map (or the person mask) is read directly every frame, so keep it running
        on = self.host.options.silhouette
        self.silhouette = SilhouetteStage() if on else None
        self.vision = VisionStage(edges=True, always_run=set() if on else {"edges"})
        return [self.vision] + ([self.silhouette] if self.silhouette is not None else [])

    def setup(self) -> None:
        self.camera_view = pygame.Rect(0, D.TITLE_H, 640, 480)
        self.edge: np.ndarray | None = None           # HxW bool, current frame
        self.support: np.ndarray | None = None        # HxW bool, settled snow resting on an edge
        self._edge_frame = -1
        self._backdrop: np.ndarray | None = None
        self._backdrop_frame = -1
        self.restart()

    def restart(self) -> str:
        # flakes as parallel arrays: position (camera px), drift, fall speed, settled, settle time
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        self.vx = np.zeros(0)
        self.vy = np.zeros(0)
        self.settled = np.zeros(0, bool)
        self.since = np.zeros(0)
        return "snow cleared"

    # -- the simulation ------------------------------------------------------
    def _refresh_edges(self) -> None:
        frame = self.host.runner.latest_frame
        if frame is None or frame.index == self._edge_frame:
            return
        if self.silhouette is not None:                 # snow lands on the person, nowhere else
            mask = self.silhouette.mask_layer()
            if mask is not None:
                self._edge_frame = frame.index
                self.edge = mask > 0
            return
        if self.vision.edge_map is None:
            return
        self._edge_frame = frame.index
        edge_map = self.vision.edge_map
        if edge_map.ndim == 2:                          # any-direction edges: one channel
            self.edge = np.asarray(edge_map > 0)
        elif self.edge_channel == "red":
            self.edge = np.asarray(edge_map[:, :, 2] > 0)
        else:
            self.edge = np.asarray(edge_map.any(axis=2))

    def _spawn(self, width: int) -> None:
        n = min(self.spawn_per_step, self.max_flakes - len(self.x))
        if n <= 0:
            return
        self.x = np.concatenate([self.x, self.rng.uniform(0, width, n)])
        self.y = np.concatenate([self.y, self.rng.uniform(-4, 0, n)])
        self.vx = np.concatenate([self.vx, np.zeros(n)])
        self.vy = np.concatenate([self.vy, self.rng.uniform(0.8, 1.6, n)])
        self.settled = np.concatenate([self.settled, np.zeros(n, bool)])
        self.since = np.concatenate([self.since, np.zeros(n)])

    def _support_map(self, occupied: np.ndarray) -> np.ndarray:
        """Settled cells resting on an edge directly or through the flakes under them."""
        s: np.ndarray = occupied & self.edge
        for _ in range(self.max_pile):
            above = occupied[:-1] & s[1:] & ~s[:-1]
            if not above.any():
                break
            s[:-1] |= above
        return s

    def update(self, dt: float) -> None:
        self._refresh_edges()
        if self.edge is None:
            return
        h, w = self.edge.shape
        self._spawn(w)
        xi = np.clip(self.x.astype(np.int64), 0, w - 1)
        yi = np.clip(self.y.astype(np.int64), 0, h - 1)
        # settled flakes stay only while something still holds them up
        occupied = np.zeros((h, w), bool)
        occupied[yi[self.settled], xi[self.settled]] = True
        self.support = self._support_map(occupied)
        held = self.settled & self.support[yi, xi] & (self.y >= 0)
        self.settled &= held
        # falling flakes: drift and fall, then settle on an edge or on the pile below
        f = ~self.settled
        self.vx[f] = np.clip(self.vx[f] + self.rng.normal(0, 0.15, int(f.sum())), -1.0, 1.0)
        self.x[f] = np.mod(self.x[f] + self.vx[f], w)
        self.y[f] += self.vy[f]
        xi = np.clip(self.x.astype(np.int64), 0, w - 1)
        yi = np.clip(self.y.astype(np.int64), 0, h - 1)
        below = np.minimum(yi + 1, h - 1)
        inside = f & (self.y >= 0) & (self.y < h)
        on_pile = inside & self.support[below, xi] & ~self.edge[yi, xi]
        # snow on snow slides down a side that is lower, so piles become heaps, not towers
        left, right = np.maximum(xi - 1, 0), np.minimum(xi + 1, w - 1)
        free_l, free_r = ~self.support[below, left], ~self.support[below, right]
        slide = on_pile & (free_l | free_r)
        go_right = free_r & (~free_l | (self.rng.random(len(xi)) < 0.5))
        self.x[slide] = np.where(go_right[slide], right[slide], left[slide]) + 0.5
        lands = inside & ~slide & (self.edge[yi, xi] | self.support[below, xi])
        self.settled |= lands
        self.since[lands] = self.t
        keep = (self.y < h) & ~(self.settled & (self.t - self.since > self.melt_s))
        if not keep.all():
            for name in ("x", "y", "vx", "vy", "settled", "since"):
                setattr(self, name, getattr(self, name)[keep])

    def levels(self) -> dict[str, float]:
        return {"flakes": float(len(self.x)), "settled": float(self.settled.sum())}

    def state(self) -> dict[str, Any]:
        return {"x": self.x.copy(), "y": self.y.copy(), "settled": self.settled.copy(),
                "edge": None if self.edge is None else self.edge.copy()}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        view = self.camera_view
        frame = self.host.runner.latest_frame
        if frame is None or self.edge is None:
            screen.fill(D.DARK, view)
        else:
            backdrop = self._backdrop
            if backdrop is None or self._backdrop_frame != frame.index:   # darken + frost once per video frame
                backdrop = self._backdrop = cv2.convertScaleAbs(frame.image, alpha=0.75)
                # opencv's stubs lack add()'s scalar (tuple) second operand, which cv2 accepts
                cv2.add(backdrop, EDGE_TINT, dst=backdrop, mask=self.edge.view(np.uint8))  # type: ignore[call-overload]
                self._backdrop_frame = frame.index
            img = backdrop.copy()
            h, w = img.shape[:2]
            xi = np.clip(self.x.astype(np.int64), 0, w - 1)
            yi = np.clip(self.y.astype(np.int64), 0, h - 1)
            on = self.y >= 0
            for dx, dy, level in ((0, 0, 255), (1, 0, 235), (0, -1, 235), (1, -1, 215)):
                img[np.clip(yi[on] + dy, 0, h - 1), np.clip(xi[on] + dx, 0, w - 1)] = level
            screen.blit(array_to_surface(img, view.size), view)
        settled = int(self.settled.sum())
        self.draw_frame(screen, f"settled {settled}")
