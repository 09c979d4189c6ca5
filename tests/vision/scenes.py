"""Test footage for motion detection, made from real frames with known ground truth.

No real clip with swaying foliage, water or camera auto-exposure *and* per-pixel ground truth is
in the developer set, so these sequences take real images and move them in the ways such
scenes move, and paste a real object (a car cut out of a CDnet frame with its own mask) on a
known path:

- ``sway``: a smooth displacement field (2-4 px, 1-2 s period, gusty) warps a region, the way
  leaves and branches move; nothing new enters the region, only its own texture shifts.
- ``ripple``: travelling waves displace a region and modulate its brightness (glints), like water.
- ``gain``: a global exposure factor per frame (ramps for clouds and dusk, steps of a few frames
  for a camera's auto-exposure); values clip at 255 as a camera's do.
- ``noise``: Gaussian sensor noise, seeded.

Everything is a function of ``(frame index, seed)``, so a test replays the same frames.
``Scene.frame(i)`` returns ``(bgr, object_mask)``; the mask is empty when no object is in view.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

W, H = 320, 240


def smooth_field(h: int, w: int, rng: np.random.Generator, scale_px: float) -> np.ndarray:
    """Zero-mean, unit-std random field with features about ``scale_px`` across."""
    f: np.ndarray = cv2.GaussianBlur(rng.normal(0.0, 1.0, (h, w)).astype(np.float32), (0, 0), scale_px / 2.5)
    field: np.ndarray = (f - f.mean()) / max(float(f.std()), 1e-6)
    return field


def feather(mask: np.ndarray, px: int = 6) -> np.ndarray:
    """0..1 float weight from a 0/1 mask, ramped over ``px`` pixels at its border."""
    m = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), px / 2.0)
    return np.clip(m, 0.0, 1.0)[..., None]


@dataclass
class Warp:
    """A moving region: ``dx, dy, shade = fn(t_s)`` (each HxW float32) applied where ``weight`` > 0."""
    weight: np.ndarray                                  # HxWx1 float 0..1
    fn: Callable[[float], tuple[np.ndarray, np.ndarray, np.ndarray | None]]


def sway(region: np.ndarray, seed: int, *, amplitude_px: float = 3.0, period_s: float = 1.6) -> Warp:
    """Leaves and branches: each patch of ~20 px oscillates with its own phase, in gusts."""
    rng = np.random.default_rng(seed)
    h, w = region.shape
    phase_x = smooth_field(h, w, rng, 25.0) * 1.5
    phase_y = smooth_field(h, w, rng, 25.0) * 1.5
    amp = (0.7 + 0.3 * np.clip(smooth_field(h, w, rng, 40.0), -1, 1)).astype(np.float32)
    gust_phase = rng.uniform(0, 2 * np.pi)
    # sin(wt + p) = sin(p) cos(wt) + cos(p) sin(wt): the fields are computed once
    sx, cx = (amp * np.sin(phase_x)).astype(np.float32), (amp * np.cos(phase_x)).astype(np.float32)
    sy, cy = (amp * np.sin(phase_y)).astype(np.float32), (amp * np.cos(phase_y)).astype(np.float32)

    def fn(t: float) -> tuple[np.ndarray, np.ndarray, None]:
        gust = 0.6 + 0.4 * np.sin(2 * np.pi * t / 4.0 + gust_phase)
        a = amplitude_px * gust
        w0 = 2 * np.pi / period_s
        dx = sx * np.float32(a * np.cos(w0 * t)) + cx * np.float32(a * np.sin(w0 * t))
        dy = sy * np.float32(0.5 * a * np.cos(1.3 * w0 * t)) + cy * np.float32(0.5 * a * np.sin(1.3 * w0 * t))
        return dx, dy, None

    return Warp(feather(region), fn)


def ripple(region: np.ndarray, seed: int, *, amplitude_px: float = 2.0, glint: float = 0.12) -> Warp:
    """Water: a few travelling waves displace the texture and brighten the crests."""
    rng = np.random.default_rng(seed)
    h, w = region.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    waves = []
    for _ in range(4):
        ang = rng.uniform(0, np.pi)
        lam = rng.uniform(12, 30)                           # wavelength, px
        speed = rng.uniform(10, 25)                         # px per second
        k = 2 * np.pi / lam
        p = k * (np.cos(ang) * xx + np.sin(ang) * yy)
        waves.append((np.sin(p).astype(np.float32), np.cos(p).astype(np.float32), k * speed,
                      rng.uniform(0, 2 * np.pi)))

    def fn(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s = np.zeros((h, w), np.float32)
        c = np.zeros((h, w), np.float32)
        for sp, cp, om, ph in waves:                        # sin/cos(p - om t + ph), expanded
            a = ph - om * t
            ca, sa = np.float32(np.cos(a) / len(waves)), np.float32(np.sin(a) / len(waves))
            s += sp * ca + cp * sa
            c += cp * ca - sp * sa
        shade = 1.0 + glint * np.clip(2.0 * s, -1, 1)
        return amplitude_px * s, amplitude_px * c, shade

    return Warp(feather(region), fn)


@dataclass
class Mover:
    """A real object (``patch`` BGR + ``mask`` 0/1) crossing from ``start`` to ``end`` (top-left,
    pixels) during frames ``first..last``."""
    patch: np.ndarray
    mask: np.ndarray
    first: int
    last: int
    start: tuple[float, float]
    end: tuple[float, float]

    def at(self, i: int) -> tuple[int, int] | None:
        if not self.first <= i <= self.last:
            return None
        u = (i - self.first) / max(1, self.last - self.first)
        return (int(round(self.start[0] + u * (self.end[0] - self.start[0]))),
                int(round(self.start[1] + u * (self.end[1] - self.start[1]))))


@dataclass
class Scene:
    """Real background + moving regions + exposure + noise + an object with a known mask."""
    base: np.ndarray                                     # HxWx3 uint8, a real frame
    warps: list[Warp] = field(default_factory=list)
    gain: Callable[[int], float] = lambda i: 1.0
    movers: list[Mover] = field(default_factory=list)
    noise_sigma: float = 2.0
    fps: float = 30.0
    seed: int = 0

    def frame(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        h, w = self.base.shape[:2]
        img = self.base.astype(np.float32)
        t = i / self.fps
        if self.warps:
            yy, xx = _grid(h, w)
            for warp in self.warps:
                dx, dy, shade = warp.fn(t)
                moved = cv2.remap(img, cv2.add(xx, dx), cv2.add(yy, dy), cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REFLECT)
                if shade is not None:
                    np.multiply(moved, shade[..., None], out=moved)
                np.subtract(moved, img, out=moved)           # img += (moved - img) * weight
                np.multiply(moved, warp.weight, out=moved)
                np.add(img, moved, out=img)
        truth = np.zeros((h, w), np.uint8)
        for mv in self.movers:
            at = mv.at(i)
            if at is None:
                continue
            x, y = at
            ph, pw = mv.mask.shape
            x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + pw), min(h, y + ph)
            if x1 <= x0 or y1 <= y0:
                continue
            m = mv.mask[y0 - y:y1 - y, x0 - x:x1 - x] > 0
            img[y0:y1, x0:x1][m] = mv.patch[y0 - y:y1 - y, x0 - x:x1 - x][m]
            truth[y0:y1, x0:x1][m] = 255
        np.multiply(img, np.float32(self.gain(i)), out=img)
        if self.noise_sigma > 0:
            noise = np.random.default_rng((self.seed, i)).standard_normal(img.shape, dtype=np.float32)
            np.multiply(noise, np.float32(self.noise_sigma), out=noise)
            np.add(img, noise, out=img)
        np.add(img, np.float32(0.5), out=img)
        np.clip(img, 0, 255, out=img)
        return img.astype(np.uint8), truth


@functools.lru_cache(maxsize=4)
def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return yy, xx


# --- real material from ../shared/data ------------------------------------------------------

def video_frame(path: Path, index: int = 0, size: tuple[int, int] = (W, H)) -> np.ndarray:
    cap = cv2.VideoCapture(str(path))
    try:
        cap.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, f = cap.read()
    finally:
        cap.release()
    if not ok:
        raise FileNotFoundError(f"cannot read frame {index} of {path}")
    return cv2.resize(f, size, interpolation=cv2.INTER_AREA)


def highway_car(shared_data: Path, index: int = 755) -> tuple[np.ndarray, np.ndarray]:
    """The largest car in CDnet highway frame ``index`` (470..769), cut out with its own mask."""
    folder = shared_data / "video" / "motion" / "cdnet_highway_a"
    img = cv2.imread(str(folder / "input" / f"in{index:06d}.jpg"))
    gt = cv2.imread(str(folder / "groundtruth" / f"gt{index:06d}.png"), cv2.IMREAD_GRAYSCALE)
    if img is None or gt is None:
        raise FileNotFoundError(f"CDnet highway frame {index} not found under {folder}")
    _n, lab, stats, _ = cv2.connectedComponentsWithStats((gt == 255).astype(np.uint8))
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[k, :4])
    return img[y:y + h, x:x + w].copy(), (lab[y:y + h, x:x + w] == k).astype(np.uint8)


def box_of(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask)
    if xs.size == 0:
        return (0, 0, 0, 0)
    return (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))




# --- the three scenes the tests and benchmarks/motion_eval.py use ----------------------------
#
# Timeline (30 fps, 240 frames): the model learns first (4 s where the background moves, 1 s
# for the exposure scene); then until frame 179 only the background moves or the exposure
# changes, and nothing should be reported; during 180-239 a car crosses.

QUIET = {"foliage": range(120, 180), "water": range(120, 180), "exposure": range(30, 180)}
OBJECT = range(180, 240)
N_FRAMES = 240


def green_region(img: np.ndarray) -> np.ndarray:
    """0/1 mask of the leaves (green hue, saturated), closed and grown a little."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    g: np.ndarray = ((hsv[..., 0] > 25) & (hsv[..., 0] < 95) & (hsv[..., 1] > 60)).astype(np.uint8)
    g = cv2.morphologyEx(g, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    return cv2.dilate(g, np.ones((5, 5), np.uint8))


def exposure(i: int) -> float:
    """Gain per frame: steady, a slow ramp up 30 % (clouds clearing), an auto-exposure step
    down to 0.8 in 3 frames, and a step up to 1.1 in 2 frames while the car is in view."""
    if i < 60:
        return 1.0
    if i < 150:
        return 1.0 + 0.3 * (i - 60) / 90
    if i < 153:
        return 1.3 - 0.5 * (i - 150) / 3
    if i < 200:
        return 0.8
    if i < 202:
        return 0.8 + 0.3 * (i - 200) / 2
    return 1.1


def scenes(shared_data: Path) -> dict[str, Scene]:
    """``foliage`` (a plant, tiger1 frame 0), ``water`` (the lawn of PETS 2009 rippling) and
    ``exposure`` (PETS 2009 with the gain curve above), each with a CDnet car crossing."""
    car, car_mask = highway_car(shared_data)
    plant = video_frame(shared_data / "video" / "tracking" / "tiger1.mp4", 0)
    plaza = video_frame(shared_data / "video" / "people" / "pets2009_vtest_part1.mp4", 0)
    lawn = np.zeros((H, W), np.uint8)
    lawn[150:240, 0:140] = 1
    first, last = OBJECT[0], OBJECT[-1]
    return {
        "foliage": Scene(plant, [sway(green_region(plant), seed=1)],
                         movers=[Mover(car, car_mask, first, last, (-60, 40), (330, 110))], seed=1),
        "water": Scene(plaza, [ripple(lawn, seed=2)],
                       movers=[Mover(car, car_mask, first, last, (330, 110), (-60, 150))], seed=2),
        "exposure": Scene(plaza, [], gain=exposure,
                          movers=[Mover(car, car_mask, first, last, (330, 110), (-60, 150))], seed=3),
    }
