"""Synthetic click-to-track material: plain shaded balls on real backgrounds, degraded like a camera.

A "plain ball" is drawn as a lit sphere (Lambert shading from the upper left, a soft specular
highlight, anti-aliased rim, slight defocus), so its pixels vary the way a real ball's do.
Backgrounds are frames of the developer videos in ``../shared/data`` (never copied into the
repo); they are split into two groups so constants can be chosen on one and checked on the
other (``TUNE`` and ``CHECK``). ``degrade`` adds sensor noise and then JPEG or H.264 (4:2:0)
compression through ffmpeg, which smears colour at the ball's rim as a webcam stream does.

Everything is seeded: the same arguments give the same pixels.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: background videos (relative to the shared data folder), in two disjoint groups
TUNE = ("video/people/pets2009_vtest_part1.mp4", "video/hands/videos/v01_dex_open_palm_fingers_fist.mp4",
        "video/hands/videos/v04_asl_signer_a_book_learn_school_walk.mp4",
        "video/motion/cdnet_highway_a/input/in000470.jpg")
CHECK = ("video/hands/videos/v02_minivision_flip_pinch.mp4", "video/hands/videos/v06_egogestar_point_swipe_left.mp4",
         "video/tracking/coke.mp4", "video/tracking/tiger1.mp4")

#: ball colours a user might hold up (BGR)
COLOURS = {"red": (40, 40, 210), "orange": (30, 120, 240), "yellow": (40, 210, 230), "green": (60, 170, 40),
           "blue": (200, 90, 30), "pink": (170, 90, 235), "purple": (150, 50, 110), "white": (225, 225, 225)}


@dataclass(frozen=True)
class Scene:
    """One frame with one ball: where it is (``box`` x, y, w, h; ``mask`` HxW bool) and what it is."""
    name: str
    frame: np.ndarray
    box: tuple[int, int, int, int]
    mask: np.ndarray
    centre: tuple[float, float]


def background_frames(data: Path, group: tuple[str, ...], *, per_source: int = 2,
                      size: tuple[int, int] = (640, 480)) -> list[tuple[str, np.ndarray]]:
    """``per_source`` frames spread over each source of ``group``, resized to ``size``."""
    out = []
    for rel in group:
        path = data / rel
        if path.suffix == ".jpg":
            frames = [cv2.imread(str(path))]
        else:
            cap = cv2.VideoCapture(str(path))
            n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
            frames = []
            for k in range(per_source):
                cap.set(cv2.CAP_PROP_POS_FRAMES, int((k + 0.5) * n / per_source))
                ok, f = cap.read()
                if ok:
                    frames.append(f)
            cap.release()
        for k, f in enumerate(frames):
            out.append((f"{path.stem}#{k}", cv2.resize(f, size, interpolation=cv2.INTER_AREA)))
    return out


def render_ball(frame: np.ndarray, cx: float, cy: float, rx: float, ry: float,
                bgr: tuple[int, int, int], *, specular: float = 0.35) -> tuple[np.ndarray, np.ndarray]:
    """Draw a lit ellipsoid; returns the new frame and its coverage mask (alpha >= 0.5)."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = (xx + 0.5 - cx) / rx, (yy + 0.5 - cy) / ry
    d2 = u * u + v * v
    # anti-aliased rim: alpha falls from 1 to 0 over about one pixel
    rim = (1.0 - np.sqrt(d2)) * min(rx, ry)
    alpha = np.clip(rim + 0.5, 0.0, 1.0)
    nz = np.sqrt(np.clip(1.0 - d2, 0.0, 1.0))
    light = np.array([-0.45, -0.55, 0.70], np.float32)
    light /= np.linalg.norm(light)
    lambert = np.clip(u * light[0] + v * light[1] + nz * light[2], 0.0, 1.0)
    shade = 0.45 + 0.75 * lambert
    spec = specular * np.clip(lambert, 0, 1) ** 24
    ball = np.asarray(bgr, np.float32)[None, None, :] * shade[..., None] + 255.0 * spec[..., None]
    out = frame.astype(np.float32) * (1 - alpha[..., None]) + ball * alpha[..., None]
    out = cv2.GaussianBlur(np.clip(out, 0, 255), (0, 0), 0.6)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8), alpha >= 0.5


def _h264(frame: np.ndarray, crf: int) -> np.ndarray:
    """One frame through libx264 (yuv420p) and back."""
    h, w = frame.shape[:2]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "f.mp4"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24",
                        "-s", f"{w}x{h}", "-i", "-", "-c:v", "libx264", "-crf", str(crf),
                        "-pix_fmt", "yuv420p", str(out)], input=frame.tobytes(), check=True)
        cap = cv2.VideoCapture(str(out))
        ok, back = cap.read()
        cap.release()
    assert ok, "ffmpeg round trip failed"
    return back


def degrade(frame: np.ndarray, rng: np.random.Generator, *, noise_sigma: float = 3.0,
            codec: str = "jpeg", quality: int = 75) -> np.ndarray:
    """Sensor noise, then ``codec`` ``"jpeg"`` (``quality`` 0..100), ``"h264"`` (``quality`` is
    the CRF) or ``"none"``."""
    f = frame.astype(np.float32) + rng.normal(0.0, noise_sigma, frame.shape).astype(np.float32)
    f = np.clip(f + 0.5, 0, 255).astype(np.uint8)
    if codec == "jpeg":
        ok, buf = cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if codec == "h264":
        if shutil.which("ffmpeg") is None:
            raise RuntimeError("ffmpeg is needed for H.264 scenes")
        return _h264(f, int(quality))
    return f


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)


def ball_scenes(backgrounds: list[tuple[str, np.ndarray]], *, seed: int = 0,
                diameters_px: tuple[int, ...] = (14, 24, 42, 64, 96), per_background: int = 5,
                min_contrast: float = 25.0) -> list[Scene]:
    """Balls of each diameter (aspect 0.9..1.1) at random places and colours on each background.

    A placement is kept only if the ball stands out from what surrounds it: the median Lab
    distance between the ball's colour and a ring around it is at least ``min_contrast``
    (a ball the user cannot see against the wall is not a "plain object" to click).
    Codecs alternate JPEG (quality 60..90) and H.264 (CRF 20..30), noise sigma 2..5.
    """
    rng = np.random.default_rng(seed)
    names = sorted(COLOURS)
    scenes = []
    for bname, bg in backgrounds:
        h, w = bg.shape[:2]
        for d in diameters_px:
            made = tries = 0
            while made < per_background and tries < 60:
                tries += 1
                rx = d / 2 * rng.uniform(0.9, 1.1)
                ry = d / 2 * rng.uniform(0.9, 1.1)
                cx = float(rng.uniform(rx + 4, w - rx - 4))
                cy = float(rng.uniform(ry + 4, h - ry - 4))
                colour = names[int(rng.integers(len(names)))]
                bgr = COLOURS[colour]
                ring = np.zeros((h, w), np.uint8)
                cv2.ellipse(ring, (int(cx), int(cy)), (int(rx * 1.6) + 3, int(ry * 1.6) + 3), 0, 0, 360, 1, -1)
                cv2.ellipse(ring, (int(cx), int(cy)), (int(rx) + 2, int(ry) + 2), 0, 0, 360, 0, -1)
                contrast = np.median(np.linalg.norm(_lab(bg[ring > 0]) - _lab(np.uint8([bgr])), axis=1))
                if contrast < min_contrast:
                    continue
                img, mask = render_ball(bg, cx, cy, rx, ry, bgr)
                codec = "jpeg" if made % 2 == 0 else "h264"
                q = int(rng.integers(60, 91)) if codec == "jpeg" else int(rng.integers(20, 31))
                img = degrade(img, rng, noise_sigma=float(rng.uniform(2, 5)), codec=codec, quality=q)
                ys, xs = np.nonzero(mask)
                box = (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
                scenes.append(Scene(f"{bname} {colour} d{d} {codec}{q}", img, box, mask, (cx, cy)))
                made += 1
    return scenes


def ball_sequence(background: np.ndarray, *, frames: int = 90, seed: int = 0,
                  bgr: tuple[int, int, int] = COLOURS["orange"], radius_px=(20.0, 20.0),
                  path_px=((200.0, 240.0), (440.0, 240.0)), jpeg_quality: int = 80):
    """A ball moving along ``path_px`` (start, end) while its radii go from ``radius_px[0]``
    to ``radius_px[1]`` (coming closer or moving away); each radius may be a pair (rx, ry)
    to change the aspect (an object turning). Yields ``(frame, box)``; box is the true one."""
    rng = np.random.default_rng(seed)
    (x0, y0), (x1, y1) = path_px
    r0 = np.broadcast_to(np.asarray(radius_px[0], np.float64), (2,))
    r1 = np.broadcast_to(np.asarray(radius_px[1], np.float64), (2,))
    for k in range(frames):
        a = k / max(1, frames - 1)
        cx, cy = x0 + a * (x1 - x0), y0 + a * (y1 - y0)
        rx, ry = r0 + a * (r1 - r0)
        img, mask = render_ball(background, cx, cy, rx, ry, bgr)
        img = degrade(img, rng, noise_sigma=3.0, codec="jpeg", quality=jpeg_quality)
        ys, xs = np.nonzero(mask)
        yield img, (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
