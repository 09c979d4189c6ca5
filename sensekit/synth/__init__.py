"""Deterministic generator of the bundled recordings and their ground truth.

``python -m sensekit.synth [--out recordings/] [--seconds 20]`` writes
``demo.skrec`` through the project's own ``Recorder`` and ``demo.truth.json``
beside it. Everything comes from seeded NumPy generators and OpenCV drawing, with
no wall-clock input, so the output is byte-identical on every run (with the same
NumPy/OpenCV builds).

The demo clip (defaults: 20 s, 320x240 at 15 fps, mono int16 audio at 16 kHz):

- **Room**: wall with banded shading and wallpaper stripes, two shelves with
  books and a picture frame, a white skirting board and floor boards; the
  shelves, skirting and boards give strong horizontal edges. Texture is
  piecewise flat (FFV1 is lossless and intra-only, so fine texture costs every
  frame); camera noise is sparse (+-2 levels on 1% of pixels per frame).
- **Ball**: orange-red (BGR 20, 45, 235), radius 14 px, on a Lissajous path
  across the full width of the upper band (y < 144) for the whole clip.
- **Hand**: a skin-coloured palm with four fingers and a thumb, waving in the
  lower-left quadrant during 3-6 s and the lower-right during 11-14 s; absent
  otherwise. Nothing else ever moves below y = 144.
- **Audio**: a faint noise floor; voice-like harmonic phrases with a pitch
  glide and a 4 Hz syllable envelope, alternating loud and quiet (1-8.6 s and
  16-18 s); claps (12 ms noise bursts, 3 ms decay) at 10, 11, 12, 12.25
  (double), 13.5 and 15 s.

``demo.truth.json`` holds the timeline, per-frame ball centre/radius and hand
box, clap times, and the loud/quiet/silent intervals. Cost: about 2-4 s for the
full clip. Fails only if the output folder cannot be written.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np

from sensekit.capture.base import UNITY_GAIN, AudioBlock, VideoFrame, merge_by_time
from sensekit.capture.recording import Recorder
from sensekit.validate import check_positive

SEED = 20261122
WIDTH, HEIGHT, FPS = 320, 240, 15
SAMPLE_RATE = 16000
BLOCK_SIZE = 512
DURATION_S = 20.0
START_UNIX = 1767225600.0          # 2026-01-01T00:00:00Z, fixed so the bundle is reproducible

BALL_BGR = (20, 45, 235)
BALL_RADIUS_PX = 14
SKIN_BGR = (130, 168, 222)
LOWER_BAND_Y = 144                 # only the hand moves below this line
SKIRTING_Y = (154, 159)
FLOOR_Y = 160
FLOORBOARD_YS = (178, 198, 220)
SHELVES = ((28, 62, 142), (176, 108, 300))       # (x0, y_top, x1), 6 px boards

HAND_INTERVALS = (("left", 3.0, 6.0, 80.0), ("right", 11.0, 14.0, 240.0))  # side, start, end, centre x
HAND_CENTRE_Y = 192.0

# (start, end, loudness, peak amplitude, f0 start Hz, f0 end Hz)
VOICE = (
    (1.0, 2.6, "loud", 0.5, 180.0, 240.0),
    (3.0, 4.6, "quiet", 0.05, 210.0, 150.0),
    (5.0, 6.6, "loud", 0.5, 150.0, 220.0),
    (7.0, 8.6, "quiet", 0.05, 230.0, 170.0),
    (16.0, 18.0, "loud", 0.5, 160.0, 260.0),
)
CLAPS = (10.0, 11.0, 12.0, 12.25, 13.5, 15.0)
CLAP_LENGTH_S = 0.012
CLAP_DECAY_S = 0.003
CLAP_PEAK = 0.9
NOISE_FLOOR_RMS = 0.0003
SYLLABLE_HZ = 4.0


# --- video ----------------------------------------------------------------------

def render_room() -> np.ndarray:
    """The static background (HxWx3 uint8 BGR)."""
    y = np.arange(HEIGHT)[:, None, None]
    x = np.arange(WIDTH)[None, :, None]
    wall = np.array([148, 138, 126], np.int16) + (y // 8) * 2          # banded shading
    wall = wall + np.where((x // 20) % 2 == 0, 0, 4)                     # wallpaper stripes
    floor = np.array([96, 116, 108], np.int16) + ((y - FLOOR_Y) // 10) * 3
    img = np.where(y < FLOOR_Y, wall, floor).astype(np.int16)
    img = np.clip(img, 0, 255).astype(np.uint8)
    for fy in FLOORBOARD_YS:                                               # floor board seams
        img[fy:fy + 2] = (img[fy:fy + 2] * 0.7).astype(np.uint8)
    cv2.rectangle(img, (0, SKIRTING_Y[0]), (WIDTH - 1, SKIRTING_Y[1]), (214, 216, 212), -1)
    # picture frame on the wall
    cv2.rectangle(img, (196, 18), (292, 76), (60, 58, 64), -1)
    cv2.rectangle(img, (202, 24), (286, 70), (190, 170, 140), -1)
    cv2.rectangle(img, (202, 52), (286, 70), (120, 140, 110), -1)
    # shelves with books standing on them
    book_colours = ((150, 80, 40), (60, 120, 50), (120, 60, 100), (110, 110, 110),
                    (140, 130, 50), (90, 70, 60), (160, 120, 90))
    for k, (x0, top, x1) in enumerate(SHELVES):
        bx = x0 + 4
        n = 0
        while bx < x1 - 10:
            w = 8 + (n * 5 + k * 3) % 7
            h = 18 + (n * 7 + k * 5) % 12
            cv2.rectangle(img, (bx, top - h), (bx + w - 1, top - 1), book_colours[(n + k) % 7], -1)
            bx += w + 1
            n += 1
        cv2.rectangle(img, (x0, top), (x1, top + 3), (205, 205, 200), -1)      # lit top face
        cv2.rectangle(img, (x0, top + 4), (x1, top + 6), (72, 70, 76), -1)     # shadowed front
    return img


def ball_centre(t: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """The ball's path: centre in pixels, quantised to 1/16 px as drawn."""
    t = np.asarray(t, dtype=np.float64)
    cx = 160.0 + 134.0 * np.sin(2 * np.pi * t / 8.0)
    cy = 72.0 + 48.0 * np.sin(2 * np.pi * t / 5.0 + 0.6)
    return np.round(cx * 16) / 16, np.round(cy * 16) / 16


def hand_state(t: float) -> tuple[str, float, float] | None:
    """(side, centre x, centre y) of the hand at time ``t``, or None when absent."""
    for side, start, end, x0 in HAND_INTERVALS:
        if start <= t < end:
            u = t - start
            return (side, x0 + 40.0 * np.sin(2 * np.pi * 0.8 * u),
                    HAND_CENTRE_Y + 6.0 * np.sin(2 * np.pi * 1.6 * u))
    return None


def _draw_hand(img: np.ndarray, hx: float, hy: float, colour: tuple[int, ...]) -> None:
    s = 16  # 4 fractional bits
    def ell(cx: float, cy: float, ax: int, ay: int, angle: float) -> None:
        cv2.ellipse(img, (int(round((hx + cx) * s)), int(round((hy + cy) * s))), (ax * s, ay * s),
                    angle, 0, 360, colour, -1, cv2.LINE_AA, 4)
    ell(0, 10, 17, 20, 0)                                         # palm
    for dx, angle, length in ((-13, -12, 13), (-4.5, -4, 16), (4.5, 4, 16), (13, 12, 13)):
        ell(dx, -16, 3, length, angle)                            # fingers
    ell(-20, 8, 4, 11, -40)                                       # thumb


def frame_times(seconds: float) -> np.ndarray:
    n = int(round(seconds * FPS))
    return np.round(np.arange(n) / FPS, 6)


def video_frames(seconds: float, truth: list[dict[str, Any]]) -> Iterator[VideoFrame]:
    """The clip's frames; appends each frame's ground truth to ``truth``."""
    rng = np.random.default_rng([SEED, 1])
    room = render_room()
    times = frame_times(seconds)
    cxs, cys = ball_centre(np.arange(len(times)) / FPS)
    mask = np.zeros((HEIGHT, WIDTH), np.uint8)
    for i, t in enumerate(times):
        img = room.copy()
        cx, cy = float(cxs[i]), float(cys[i])
        cv2.circle(img, (int(cx * 16), int(cy * 16)), BALL_RADIUS_PX * 16, BALL_BGR, -1,
                   cv2.LINE_AA, 4)
        hand = hand_state(i / FPS)
        hand_truth = None
        if hand is not None:
            side, hx, hy = hand
            _draw_hand(img, hx, hy, SKIN_BGR)
            mask[:] = 0
            _draw_hand(mask, hx, hy, (255,))
            x, y, w, h = cv2.boundingRect(mask)
            hand_truth = {"box": [x, y, w, h], "side": side,
                          "cx": round(hx, 3), "cy": round(hy, 3)}
        # sparse camera noise: +-2 levels (same on all channels) on 1% of pixels
        hit = rng.random((HEIGHT, WIDTH)) < 0.01
        delta = rng.integers(-2, 3, size=(HEIGHT, WIDTH), dtype=np.int16) * hit
        img = np.clip(img.astype(np.int16) + delta[:, :, None], 0, 255).astype(np.uint8)
        truth.append({"index": i, "t": float(t),
                      "ball": {"cx": cx, "cy": cy, "r": float(BALL_RADIUS_PX)},
                      "hand": hand_truth})
        yield VideoFrame(i, float(t), img, None)


# --- audio -----------------------------------------------------------------------

def _fade(n: int, ramp: int) -> np.ndarray:
    env = np.ones(n)
    r = min(ramp, n // 2)
    if r > 0:
        w = 0.5 - 0.5 * np.cos(np.pi * np.arange(r) / r)
        env[:r] = w
        env[n - r:] = w[::-1]
    return env


def synth_audio(seconds: float) -> np.ndarray:
    """The whole soundtrack as float32 samples (vectorized over samples and harmonics)."""
    n_total = int(round(seconds * SAMPLE_RATE))
    rng = np.random.default_rng([SEED, 2])
    audio = rng.normal(0.0, NOISE_FLOOR_RMS, n_total)
    for start, end, _, peak, f_a, f_b in VOICE:
        s0, s1 = int(round(start * SAMPLE_RATE)), min(int(round(end * SAMPLE_RATE)), n_total)
        if s1 <= s0:
            continue
        n = int(round((end - start) * SAMPLE_RATE))
        u = np.arange(n) / n
        f0 = f_a + (f_b - f_a) * u                                    # linear pitch glide
        phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
        k = np.arange(1, 13)[:, None]
        weights = (1.0 / k) * (1.0 + 1.5 * np.exp(-((k * f_a - 700.0) / 400.0) ** 2))
        alias = (k * f0[None, :] < 0.45 * SAMPLE_RATE)
        voice = (weights * np.sin(k * phase[None, :]) * alias).sum(axis=0)
        voice /= np.abs(voice).max()
        t_rel = np.arange(n) / SAMPLE_RATE
        syllables = 0.35 + 0.65 * np.sin(np.pi * SYLLABLE_HZ * t_rel) ** 2
        env = peak * syllables * _fade(n, int(0.02 * SAMPLE_RATE))
        audio[s0:s1] += (voice * env)[: s1 - s0]
    n_clap = int(round(CLAP_LENGTH_S * SAMPLE_RATE))
    t_clap = np.arange(n_clap) / SAMPLE_RATE
    clap_env = np.exp(-t_clap / CLAP_DECAY_S) * np.minimum(1.0, t_clap / 0.0005 + 1.0 / 8)
    for j, t in enumerate(CLAPS):
        s0 = int(round(t * SAMPLE_RATE))
        if s0 >= n_total:
            continue
        burst = np.random.default_rng([SEED, 3, j]).uniform(-1.0, 1.0, n_clap) * clap_env
        burst *= CLAP_PEAK / np.abs(burst).max()
        s1 = min(s0 + n_clap, n_total)
        audio[s0:s1] += burst[: s1 - s0]
    return np.clip(audio, -1.0, 32767 / 32768).astype(np.float32)


def audio_blocks(samples: np.ndarray) -> Iterator[AudioBlock]:
    for k, start in enumerate(range(0, len(samples), BLOCK_SIZE)):
        yield AudioBlock(k, start / SAMPLE_RATE, samples[start:start + BLOCK_SIZE], SAMPLE_RATE, None)


# --- truth --------------------------------------------------------------------------

def _intervals(seconds: float) -> dict[str, Any]:
    def clipped(pairs: list[tuple[float, float]]) -> list[list[float]]:
        return [[a, min(b, seconds)] for a, b in pairs if a < seconds]
    loud = [(s, e) for s, e, kind, *_ in VOICE if kind == "loud"]
    quiet = [(s, e) for s, e, kind, *_ in VOICE if kind == "quiet"]
    sounds = sorted([(s, e) for s, e, *_ in VOICE]
                    + [(t, t + CLAP_LENGTH_S) for t in CLAPS])
    silence, last = [], 0.0
    for s, e in sounds:
        if s > last:
            silence.append((last, s))
        last = max(last, e)
    if last < seconds:
        silence.append((last, seconds))
    return {"loud": clipped(loud), "quiet": clipped(quiet),
            "silence": [[round(a, 6), round(b, 6)] for a, b in clipped(silence)]}


def build_truth(seconds: float, frames: list[dict[str, Any]]) -> dict[str, Any]:
    claps = [t for t in CLAPS if t < seconds]
    timeline: list[dict[str, Any]] = []
    for side, start, end, _ in HAND_INTERVALS:
        timeline.append({"start": start, "end": end, "track": "video",
                         "what": f"hand waves in the lower-{side} quadrant"})
    for start, end, kind, _, f_a, f_b in VOICE:
        timeline.append({"start": start, "end": end, "track": "audio",
                         "what": f"{kind} voice, pitch {f_a:g}->{f_b:g} Hz"})
    for t in CLAPS:
        timeline.append({"start": t, "end": t + CLAP_LENGTH_S, "track": "audio", "what": "clap"})
    timeline = [e for e in sorted(timeline, key=lambda e: (e["start"], e["track"]))
                if e["start"] < seconds]
    return {
        "name": "demo",
        "generator": "python -m sensekit.synth",
        "seed": SEED,
        "duration_s": seconds,
        "video": {"width": WIDTH, "height": HEIGHT, "fps": FPS, "frames": len(frames)},
        "audio": {"sample_rate": SAMPLE_RATE, "channels": 1, "block_size": BLOCK_SIZE,
                  "samples": int(round(seconds * SAMPLE_RATE))},
        "timeline": timeline,
        "ball": {"color_bgr": list(BALL_BGR), "radius_px": BALL_RADIUS_PX,
                 "path": "cx = 160 + 134 sin(2 pi t / 8), cy = 72 + 48 sin(2 pi t / 5 + 0.6), "
                         "rounded to 1/16 px; always visible, always above y = 134"},
        "hand": {"color_bgr": list(SKIN_BGR),
                 "intervals": [{"side": side, "start": s, "end": e} for side, s, e, _ in HAND_INTERVALS
                               if s < seconds],
                 "path": "cx = x0 + 40 sin(2 pi 0.8 u), cy = 192 + 6 sin(2 pi 1.6 u), "
                         "u = t - start, x0 = 80 (left) or 240 (right)"},
        "zones": {"ball_band": [0, 0, WIDTH, LOWER_BAND_Y],
                  "left": [0, LOWER_BAND_Y, WIDTH // 2, HEIGHT - LOWER_BAND_Y],
                  "right": [WIDTH // 2, LOWER_BAND_Y, WIDTH // 2, HEIGHT - LOWER_BAND_Y],
                  "note": "only the hand moves in 'left'/'right', only during its intervals"},
        "horizontal_edges_y": sorted({SKIRTING_Y[0], FLOOR_Y, *FLOORBOARD_YS,
                                      *(top for _, top, _ in SHELVES),
                                      *(top + 6 for _, top, _ in SHELVES)}),
        "claps": claps,
        "clap_patterns": [{"count": 2, "times": [12.0, 12.25]}] if seconds > 12.25 else [],
        "clap_length_s": CLAP_LENGTH_S,
        "voice": [{"start": s, "end": e, "loudness": kind, "peak": peak, "f0_hz": [f_a, f_b],
                   "f0_contour": "linear", "syllable_hz": SYLLABLE_HZ}
                  for s, e, kind, peak, f_a, f_b in VOICE if s < seconds],
        **_intervals(seconds),
        "noise_floor_rms": NOISE_FLOOR_RMS,
        "frames": frames,
    }


# --- writing ------------------------------------------------------------------------

def generate(out: str | Path = "recordings", *, seconds: float = DURATION_S, name: str = "demo") -> Path:
    """Write ``OUT/NAME.skrec`` and ``OUT/NAME.truth.json``; returns the recording path.

    An existing recording of that name is replaced.
    """
    seconds = check_positive("seconds", seconds)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rec_path = out / f"{name}.skrec"
    if rec_path.exists():
        if not (rec_path / "meta.json").is_file():
            raise FileExistsError(f"'{rec_path}' exists and is not a recording; not replacing it")
        shutil.rmtree(rec_path)
    frames_truth: list[dict[str, Any]] = []
    notes = (f"Synthetic demo clip from `python -m sensekit.synth` (seed {SEED}): a room with shelves, "
             "an orange-red ball on a Lissajous path, a hand waving lower-left (3-6 s) then "
             "lower-right (11-14 s), voice-like phrases and claps. Ground truth: "
             f"{name}.truth.json.")
    with Recorder(rec_path, video=(WIDTH, HEIGHT, float(FPS)), audio=(SAMPLE_RATE, 1), gain=UNITY_GAIN,
                  sources=[f"synth:{name} seed={SEED}"], notes=notes, block_size=BLOCK_SIZE,
                  start_unix=START_UNIX, reproducible=True) as rec:
        for item in merge_by_time(video_frames(seconds, frames_truth),
                                  audio_blocks(synth_audio(seconds))):
            rec.write(item)
    truth = build_truth(seconds, frames_truth)
    (out / f"{name}.truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n",
                                            encoding="utf-8")
    return rec_path
