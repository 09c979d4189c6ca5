"""BackgroundModel: which pixels are not background, learned per pixel from the footage itself.

A sample-consensus model (the ideas of ViBe, PBAS and SuBSENSE, in colour, vectorised):

- **Samples.** Each pixel keeps ``samples`` (20) past background colours. A pixel is background
  when at least ``min_matches`` (2) of them lie within its match distance on every channel
  (largest of |dB|, |dG|, |dR|). Swaying leaves or rippling water leave several colours in a
  pixel's samples, so each of them matches; a car's colour does not.
- **Conservative, random updates.** A background pixel replaces one random sample about once
  every ``memory_frames / samples`` frames (16), and writes its colour into a random
  neighbour's samples as often (so the model also learns colours that sway in from next door,
  and eats ghosts from their edges). A sample lives about ``memory_frames`` frames (320:
  ~10 s at 30 fps). Foreground pixels are not learned.
- **Per-pixel match distance.** ``max(match_distance, noise_k x camera noise)``, the camera
  noise being the sigma of a frame difference, learned as in the difference method (so a
  noisy webcam gets a wider distance by itself). It is raised where the background itself
  moves: to 5x the pixel's running distance to its nearest sample (PBAS), and by 10 % per unit
  of "blinking" v, which counts the pixel's flips between foreground and background away from
  any object (+1 per flip, -0.1 per frame, SuBSENSE). Where it blinks, the pixel also learns
  up to 1 + 10 v times faster (at most every 2nd frame), so new leaf positions are taken in.
  Still pixels keep the sensitive floor.
- **Warm-up.** During the first ``learn_frames`` (120: 4 s at 30 fps) everything in view is
  learned, every frame at first and then once every 16 frames, so cars or people passing at
  start-up do not stay as ghosts, and swaying leaves are seen through a gust or two. Keep out
  of view while it learns if you want to be found at once.
- **Objects that stop.** A foreground pixel whose colour has not changed for
  ``absorb_after_frames`` (150: 5 s at 30 fps) is learned as background: a parked car, a
  person standing still, the ghost where something stood during the warm-up. 0 turns this off
  (MOG2's defaults absorb a stopped object in about 2 s).
- **Global light changes and auto-exposure.** Each frame's per-channel gain against the
  samples (one slot per frame, outside the last foreground) is the median ratio over a grid of
  ~3000 pixels; if it differs from 1 by more than 2 %, the frame is divided by it before
  matching and learning, so the model keeps one exposure. Pixels the camera clipped at 255
  count as "at least that bright". ``lighting=True`` when the gain moved by more than 2 % since
  the previous frame. A change that still leaves more than ``lighting_fraction`` (0.5) of the
  frame foreground is learned again (the warm-up restarts) once the new view has held still for
  ``settle_frames`` (3) frames; until then the mask is empty, ``lighting=True`` and nothing is
  learned. A camera glitch (frames of noise) or a pan never holds still: it costs the matching
  alone and the model is kept as it was (a restart refills every sample, ~10 frames' work at
  1920x1080: a glitch used to restart it on every frame, 2.9 s a frame).
- **Shadows** (``shadows=True``, off by default): a foreground pixel 45-95 % as bright as the
  background with the same hue and saturation is background.
- **Clean-up** (``clean=True``): 5x5 median, 7x7 close, 3x3 open.

``match_distance`` (12), ``learn_frames`` (120) and ``shadows`` (off: it removes the dark parts
of cars) were chosen from a small grid on the first half of CDnet ``highway`` (frames 470-619)
and reported on the second half, beside MOG2 and KNN given the same treatment
(``benchmarks/motion_eval.py``; the README has the table). The rest come from the papers
(ViBe: 20 samples, 2 matches, 1-in-16 updates; PBAS: 5x the nearest-sample distance;
SuBSENSE: blinking +1/-0.1) or from the difference method (``noise_k`` 5). 16 samples (a fifth
less matching) scored the same on highway but let swaying leaves through (docs/blobs.md).

The model's parts: the matching against the samples is ``sensekit.vision.sample_match``, the
rules by which samples are learned (update limits, neighbour copies, still objects absorbed,
the adapted match distance) ``sensekit.vision.sample_update``, the shadows and the clean-up
``sensekit.vision.foreground_mask``; this module holds the settings, the samples and the frame's
way through them.

Cost: 20 passes of eight OpenCV calls over the frame, then ~30 for the clean-up, the updates
and the adaptation. Frames of 200 000 pixels or more (640x480: yes) are worked on in two bands
of rows on two threads (``sensekit.vision.bands``), as MOG2 uses both cores; with blobs,
1.1-1.3x MOG2 + ``findContours`` at 640x480 on a loaded 2-core machine and 1.4-1.5x in the
quietest runs to be had (MOG2 near its idle cost; ``benchmarks/blob_eval.py --cost``,
docs/blobs.md). Memory ``samples x W x H x 3`` bytes (4.6 MB at 320x240,
18 MB at 640x480). The same frames give the same masks on every run and on one thread or two
(seeded, ``seed``).

Failure modes: a moving or shaking camera makes everything foreground (after half the frame,
nothing is reported until the view holds still, then the warm-up restarts); whatever is in
view during the warm-up becomes background, and leaves a ghost for ``absorb_after_frames``
when it goes; an object coloured like the background behind it
(within the match distance) is missed; a cast shadow is foreground unless ``shadows=True``; a
local light change (a lamp lighting one corner) shows as foreground until absorbed; background
motion stronger than any seen so far (a gust after a calm) shows as small specks for a second
or two while it is learned.
"""
# cv2's stubs reject a scalar second operand (cv2.add(img, 1, dst=...)), which OpenCV accepts:
# mypy: disable-error-code="call-overload"
from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.settings import Tunable, setting
from sensekit.settings.live import charge_budget
from sensekit.validate import check_frame
from sensekit.vision.bands import bands, in_bands
from sensekit.vision.exposure import (GAIN_TOLERANCE, SATURATED, apply_gain, exposure_gain, gain_table,
                                      grid_for)
from sensekit.vision.foreground_mask import CLEAN_REACH, clean_mask, drop_shadows
from sensekit.vision.noise import MIN_MEDIAN, SQRT2, sigma_from_median
from sensekit.vision.sample_match import MatchScratch, match_count, match_nearest
from sensekit.vision.sample_update import (BLINK_TENTHS, BLINK_UPDATE, UpdateDraws, absorb_still, adapt_distance,
                                           copy_to_neighbour, update_limits)

__all__ = ["BackgroundModel", "exposure_gain", "apply_gain", "gain_table", "clean_mask", "grid_for", "GAIN_TOLERANCE",
           "SATURATED"]

_SPLIT_PIXELS = 200_000         # frames this large are worked on in two bands on two threads (640x480: yes)
# the update limits' constants (sample_update), under the names tests/vision/test_background.py reads
_BLINK_TENTHS, _BLINK_UPDATE = BLINK_TENTHS, BLINK_UPDATE
_NEAR = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))  # where objects are, grown by 3 px


def _check_counts(v: Mapping[str, Any]) -> None:
    if v["min_matches"] > v["samples"]:
        raise ConfigError(f"`background.min_matches` ({v['min_matches']}) must not exceed "
                          f"`background.samples` ({v['samples']})")
    if v["memory_frames"] < v["samples"]:
        raise ConfigError(f"`background.memory_frames` ({v['memory_frames']}) must be at least "
                          f"`background.samples` ({v['samples']})")


class BackgroundModel(Tunable, section="background",
                      title="background model for motion's background method (ViBe/PBAS/SuBSENSE-like)",
                      rule=_check_counts):
    """Per-pixel sample-consensus background model. See the module docstring.

    ``update(frame)`` returns ``(mask, lighting)``: a 0/255 HxW mask of foreground (a new
    array each frame) and whether a global light change restarted the warm-up.
    """

    _owed = False      # a setting restarted the model: its next start is charged to the run

    samples = setting(20, "past background colours kept per pixel", unit="samples", lo=4, hi=64)
    min_matches = setting(2, "samples a pixel must match to be background", unit="samples", lo=1, hi=64)
    match_distance = setting(12.0, "colour distance that matches a sample (raised by the camera noise "
                             "and where the background moves)", unit="pixel levels", lo=1, hi=255)
    noise_k = setting(5.0, "match distance at least this many standard deviations of the frame "
                      "difference", unit="sigmas", lo=0, hi=50)
    learn_frames = setting(120, "frames learned whole at the start (and after a light change)",
                           unit="frames", lo=1, hi=100_000)
    memory_frames = setting(320, "how long a background colour is remembered, on average",
                            unit="frames", lo=4, hi=10_000_000)
    absorb_after_frames = setting(150, "a still object fades into the background after this long "
                                  "(0: never)", unit="frames", lo=0, hi=60_000)
    shadows = setting(False, "suppress shadows: pixels 45-95 % as bright as the background with its "
                      "chromaticity are background (off: a shadow is foreground)")
    clean = setting(True, "clean the mask (median, close, open)")
    lighting_fraction = setting(0.5, "a change over this fraction of the frame restarts the warm-up "
                                "once the new view holds still", unit="fraction", lo=0.05, hi=1)
    settle_frames = setting(3, "frames a changed view must hold still before it is learned again "
                            "(1: at once; camera glitches, noise and pans never hold)", unit="frames", lo=1, hi=1000)
    seed = setting(0, "random seed of the sample updates (same seed, same masks)", lo=0, hi=2**32 - 1)


    def __init__(self, **settings: Any) -> None:
        self.init_settings(settings)
        self.gain: tuple[float, float, float] = (1.0, 1.0, 1.0)
        self.noise_sigma: float | None = None
        self.reset()

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if changed.keys() & {"samples", "seed", "match_distance"}:
            self.reset()
            self._owed = True                 # the restart's cost is the run's settings budget's

    @property
    def update_every_frames(self) -> float:
        """Mean frames between two sample replacements at a background pixel."""
        return self.memory_frames / self.samples

    def reset(self) -> None:
        """Forget everything; the next frame starts a new warm-up."""
        self._rng = np.random.default_rng(self.seed)
        self._S: np.ndarray | None = None
        self._limit_step = -1.0
        self._limit_table = np.zeros((256, 1), np.uint16)
        self.frames = 0
        #: frames in a row that changed as a whole and held still (``settle_frames``)
        self.settling = 0
        #: frames that changed as a whole and were passed over (glitches, pans): not learned
        self.passed_over = 0
        self._view: np.ndarray | None = None        # the last such frame, on the grid

    # -- setup --------------------------------------------------------------------------
    def _start(self, x: np.ndarray) -> None:
        """Fill the samples from one frame: each from a random 3x3 neighbour (ViBe)."""
        h, w = x.shape[:2]
        if self._S is None or self._S.shape[2:] != (h, w):
            self._alloc(h, w)
        assert self._S is not None
        rng = self._rng
        yy = np.arange(h, dtype=np.int32)[:, None]
        xx = np.arange(w, dtype=np.int32)[None, :]
        planes = [p.reshape(-1) for p in cv2.split(x)]
        for k in range(self.samples):
            idx = None
            if k:
                ys = np.clip(yy + rng.integers(-1, 2, (h, w), dtype=np.int8), 0, h - 1)
                xs = np.clip(xx + rng.integers(-1, 2, (h, w), dtype=np.int8), 0, w - 1)
                idx = (ys * w + xs).reshape(-1)
            for c in range(3):
                self._S[k, c] = planes[c].reshape(h, w) if idx is None else planes[c][idx].reshape(h, w)
        np.copyto(self._last_bg, x)
        cv2.split(x, self._prev_x)
        self._dmin[:] = 0
        self._blink[:] = 0
        self._still[:] = 0
        self._prev_raw[:] = 0
        self._prev_mask = np.zeros((h, w), np.uint8)      # the last mask belongs to the caller
        self._thr[:] = int(round(self.match_distance))
        self.frames = 1
        self.gain = (1.0, 1.0, 1.0)

    def _alloc(self, h: int, w: int) -> None:
        self._S = np.empty((self.samples, 3, h, w), np.uint8)     # planar: no de-interleaving
        self._views: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self._x = [np.empty((h, w), np.uint8) for _ in range(3)]      # this frame, split (B, G, R)
        self._prev_x = [np.empty((h, w), np.uint8) for _ in range(3)]  # the last frame (swapped)
        self._last_bg = np.empty((h, w, 3), np.uint8)
        self._dmin = np.zeros((h, w), np.float32)
        self._blink = np.zeros((h, w), np.uint8)
        self._still = np.zeros((h, w), np.uint8)
        self._prev_raw = np.zeros((h, w), np.uint8)
        self._prev_mask = np.zeros((h, w), np.uint8)
        self._thr = np.empty((h, w), np.uint8)
        # uniform 16-bit numbers, read from a random offset each frame (cheaper than drawing)
        self._rand = self._rng.integers(0, 65536, 3 * h * w + 4099, dtype=np.uint16)
        self._d = [np.empty((h, w), np.uint8) for _ in range(2)]
        self._dist = np.empty((h, w), np.uint8)
        self._mind = np.empty((h, w), np.uint8)
        self._hit = np.empty((h, w), np.uint8)
        self._count = np.empty((h, w), np.uint8)
        self._raw = np.zeros((h, w), np.uint8)             # this frame's raw foreground (two buffers:
        self._bg = np.empty((h, w), np.uint8)              # _prev_raw is the other)
        self._upd = np.empty((h, w), np.uint8)
        self._limit = np.empty((h, w), np.uint16)
        self._flips = np.empty((h, w), np.uint8)
        self._extra = np.empty((h, w), np.uint8)
        self._old = np.empty((h, w), np.uint8)
        self._clip = np.empty((h, w, 3), np.uint8)
        self._xc = np.empty((h, w, 3), np.uint8)            # the frame, exposure-compensated
        self._grid = grid_for(h, w)

    # -- per frame ----------------------------------------------------------------------
    def update(self, frame: np.ndarray) -> tuple[np.ndarray, bool]:
        """Foreground mask (0/255, new array) and whether a global light change happened.

        Frames of ``_SPLIT_PIXELS`` or more are worked on in two bands of rows on two threads
        where OpenCV has more than one (MOG2 uses every core too): the matching, the sample
        updates and the adaptation are per pixel, so the masks are the same either way.
        """
        if self._pending:
            self.apply_pending()
        if frame.__class__ is not np.ndarray or frame.dtype != np.uint8 or frame.ndim != 3:
            check_frame(frame)
        h, w = frame.shape[:2]
        if self._S is None or self._S.shape[2:] != (h, w):
            check_frame(frame)
            started = time.perf_counter()
            self._start(frame)
            if self._owed:
                self._owed = False
                charge_budget(time.perf_counter() - started)
            return np.zeros((h, w), np.uint8), False
        self.frames += 1
        before = self.gain
        lut = self._exposure(frame)
        x = frame if lut is None else self._xc
        raw, mind = self._match(frame, lut, x)
        if self.shadows:
            drop_shadows(x, self._last_bg, raw)
        if cv2.countNonZero(raw) > self.lighting_fraction * h * w:
            return self._changed_view(x, before)
        self.settling, self._view = 0, None
        self._learn_noise(x)
        lighting = any(abs(g / b - 1.0) > GAIN_TOLERANCE for g, b in zip(self.gain, before))
        return self._learn(x, raw, mind), lighting

    def _changed_view(self, x: np.ndarray, before: tuple[float, float, float]) -> tuple[np.ndarray, bool]:
        """A frame most of which matches nothing learned: a new view (the camera moved, a
        light the exposure cannot explain) is learned again once it has held still for
        ``settle_frames`` frames; until then, and for frames that never hold still (a glitch
        of noise, a pan), nothing is learned and the model stays as it was, at the cost of the
        matching alone (a restart fills every sample: ~10 frames' work at 1920x1080)."""
        h, w = x.shape[:2]
        view = x[self._grid]
        steady = False
        if self._view is not None:
            d = cv2.absdiff(view, self._view).max(axis=-1)
            still = float(np.count_nonzero(d <= max(self.match_distance, self.noise_k * (self.noise_sigma or 0.0))))
            steady = still >= (1.0 - self.lighting_fraction) * d.size
        self._view = view.copy()
        self.settling = self.settling + 1 if steady else 1   # frames of this view so far
        if self.settling >= self.settle_frames:
            self.settling, self._view = 0, None
            self._start(x)                    # the scene changed as a whole: learn it again
        else:
            self.passed_over += 1
            self.gain = before                # a passing frame's exposure is not the scene's
        return np.zeros((h, w), np.uint8), True

    @staticmethod
    def _rows(h: int, w: int) -> tuple[slice, ...]:
        return bands(0, h, split=h * w >= _SPLIT_PIXELS and cv2.getNumThreads() > 1)

    def _match(self, frame: np.ndarray, lut: np.ndarray | None, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw foreground (0/255) and each pixel's distance to its nearest sample; ``x`` is
        ``frame`` compensated with ``lut`` (written here when there is one)."""
        planes = self._x
        raw = self._raw

        def rows(r: slice) -> None:
            if lut is not None:
                self._compensate_rows(r, frame, lut, x)
            cv2.split(x[r], [p[r] for p in planes])
            if self.min_matches <= 2:
                self._match_nearest(r, planes, raw)
            else:
                self._match_count(r, planes, raw)

        in_bands(rows, self._rows(*x.shape[:2]))
        return raw, self._mind

    def _sample_rows(self, rows: slice) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each sample's three planes at ``rows`` (views, made once per band)."""
        views = self._views.get((rows.start, rows.stop))
        if views is None:
            assert self._S is not None
            views = self._views[(rows.start, rows.stop)] = [(s[0][rows], s[1][rows], s[2][rows]) for s in self._S]
        return views

    def _scratch(self, rows: slice) -> MatchScratch:
        return MatchScratch(self._dist[rows], self._d[0][rows], self._d[1][rows], self._hit[rows])

    def _match_nearest(self, rows: slice, planes: Sequence[np.ndarray], raw: np.ndarray) -> None:
        """``min_matches`` <= 2: a pixel matches when its ``min_matches``-th nearest sample is
        within the distance, so the two smallest distances are kept instead of a count."""
        match_nearest([p[rows] for p in planes], self._sample_rows(rows), self._thr[rows], raw[rows],
                      min_matches=self.min_matches, nearest=self._mind[rows], second=self._count[rows],
                      scratch=self._scratch(rows))

    def _match_count(self, rows: slice, planes: Sequence[np.ndarray], raw: np.ndarray) -> None:
        """Count the samples within the distance (any ``min_matches``)."""
        match_count([p[rows] for p in planes], self._sample_rows(rows), self._thr[rows], raw[rows],
                    min_matches=self.min_matches, nearest=self._mind[rows], count=self._count[rows],
                    scratch=self._scratch(rows))

    def _learn_noise(self, x: np.ndarray) -> None:
        """Camera noise from the median frame difference on a grid (every 4th frame)."""
        if self.frames % 4 and self.noise_sigma is not None:
            return
        prev = np.stack([p[self._grid] for p in self._prev_x], axis=-1)
        d = cv2.absdiff(x[self._grid], prev)
        med = float(np.median(d.max(axis=2)))
        sigma = sigma_from_median(max(med, MIN_MEDIAN), "max")     # the camera noise rule
        if self.noise_sigma is None:
            self.noise_sigma = sigma
        elif sigma <= 2.0 * self.noise_sigma:       # a jump is motion, not noise
            self.noise_sigma = 0.9 * self.noise_sigma + 0.1 * sigma

    def _exposure(self, frame: np.ndarray) -> np.ndarray | None:
        """The table dividing ``frame`` by its global per-channel gain against the samples, or
        None when the gain is within ``GAIN_TOLERANCE`` of 1.

        The reference is one sample slot (a different one each frame): the samples hold the
        exposure the model learned, which lags a fast ramp; the last background colour does not.
        """
        assert self._S is not None
        ref = np.moveaxis(self._S[self.frames % self.samples][(slice(None),) + self._grid], 0, -1)
        every = (slice(None), slice(None))
        g = exposure_gain(frame[self._grid], ref, grid=every, ignore=self._prev_mask[self._grid])
        self.gain = (float(g[0]), float(g[1]), float(g[2]))
        if np.all(np.abs(g - 1.0) <= GAIN_TOLERANCE):
            return None
        return gain_table(1.0 / g)

    def _compensate_rows(self, r: slice, frame: np.ndarray, lut: np.ndarray, x: np.ndarray) -> None:
        """Rows ``r`` of ``x`` = ``frame`` through ``lut``."""
        cv2.LUT(frame[r], lut, dst=x[r])
        if max(self.gain) > 1.0:
            # the camera clipped these channels: the scene is at least as bright as the
            # background, so there x is at least the last background colour
            clipped = cv2.compare(frame[r], SATURATED, cv2.CMP_GE, dst=self._clip[r])
            cv2.bitwise_and(self._last_bg[r], clipped, dst=clipped)
            cv2.max(x[r], clipped, dst=x[r])

    # -- learning -----------------------------------------------------------------------
    def _learn(self, x: np.ndarray, raw: np.ndarray, mind: np.ndarray) -> np.ndarray:
        """Clean the mask, replace samples at the chosen pixels (see the module docstring),
        adapt; returns the clean mask.

        One pass over bands of rows does everything but the copies into a neighbour's samples
        whose source row lies in the other band (one row at the seam), done after it.
        """
        assert self._S is not None
        h, w = raw.shape
        rng = self._rng
        start = int(rng.integers(self._rand.size - h * w))
        own = self._S[int(rng.integers(self.samples))]
        dy, dx = (int(v) for v in rng.integers(-1, 2, 2))
        draws = UpdateDraws(self._rand[start:start + h * w].reshape(h, w), own, dy, dx,
                       self._S[int(rng.integers(self.samples))], self._limits())
        mask = np.empty((h, w), np.uint8)
        rows = self._rows(h, w)
        done: list[slice] = []
        in_bands(lambda r: done.append(self._learn_rows(r, x, raw, mind, mask, draws)), rows)
        edge = 0
        for part in sorted(done, key=lambda s: s.start) + [slice(h, h)]:
            if part.start > edge:
                self._neighbour(slice(edge, part.start), draws)
            edge = max(edge, part.stop)
        self._raw, self._prev_raw = self._prev_raw, raw
        self._x, self._prev_x = self._prev_x, self._x
        self._prev_mask = mask
        return mask

    def _limits(self) -> np.ndarray:
        """The 256x1 uint16 table from a pixel's blinking (tenths) to its update limit
        (``sample_update.update_limits``), made again when the update rate changes."""
        step = 65536.0 / self.update_every_frames
        if self._limit_step != step:
            self._limit_table, self._limit_step = update_limits(self.update_every_frames), step
        return self._limit_table

    def _neighbour(self, dst_y: slice, d: UpdateDraws) -> None:
        """The learned colours of rows ``dst_y - dy`` into a neighbour's samples at ``dst_y``."""
        copy_to_neighbour(self._x, self._upd, dst_y, d)

    def _clean_rows(self, r: slice, raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``mask[r]`` = the clean mask's rows ``r``; returns where objects were, grown by 3 px,
        for those rows (this mask or the last one). Works on ``r`` widened by the filters'
        reach, so the rows are the same as when the whole frame is cleaned."""
        h = raw.shape[0]
        lo, hi = max(0, r.start - CLEAN_REACH - 3), min(h, r.stop + CLEAN_REACH + 3)
        clean = clean_mask(raw[lo:hi]) if self.clean else raw[lo:hi]
        mask[r] = clean[r.start - lo:r.stop - lo]
        a, b = max(0, r.start - 3), min(h, r.stop + 3)
        near = cv2.bitwise_or(clean[a - lo:b - lo], self._prev_mask[a:b])
        return cv2.dilate(near, _NEAR)[r.start - a:r.stop - a]

    def _learn_rows(self, r: slice, x: np.ndarray, raw: np.ndarray, mind: np.ndarray, mask: np.ndarray,
                    d: UpdateDraws) -> slice:
        """Rows ``r``: the clean mask, which pixels learn, their samples, the last background
        colour, adaptation, and the neighbour copies within ``r``; returns the rows copied."""
        near = self._clean_rows(r, raw, mask)
        bg = cv2.bitwise_not(raw[r], dst=self._bg[r])
        upd = self._upd[r]
        n = self.frames
        if n <= self.learn_frames:                  # warm-up: everything, every frame at first
            period = max(1.0, min(self.update_every_frames, n / 2.0))
            cv2.compare(d.rand[r], 65536.0 / period, cv2.CMP_LT, dst=upd)
        else:                                       # background only; faster where it blinks
            limit = cv2.LUT(self._blink[r], d.limits, dst=self._limit[r])
            cv2.compare(d.rand[r], limit, cv2.CMP_LT, dst=upd)
            cv2.bitwise_and(upd, bg, dst=upd)
        if self.absorb_after_frames:
            self._absorb(r, x, raw, upd)
        planes = self._x                            # x, split by _match
        for c in range(3):
            cv2.copyTo(planes[c][r], upd, d.own[c][r])
        cv2.copyTo(x[r], bg, self._last_bg[r])
        self._adapt(r, raw, mind, bg, near)
        # the same colours into a random neighbour's samples (one direction per frame), where
        # both rows are in r
        inside = slice(max(r.start, r.start + d.dy), min(r.stop, r.stop + d.dy))
        self._neighbour(inside, d)
        return inside

    def _absorb(self, r: slice, x: np.ndarray, raw: np.ndarray, upd: np.ndarray) -> None:
        """Foreground that has not changed for ``absorb_after_frames`` joins the background."""
        absorb_still([p[r] for p in self._x], [p[r] for p in self._prev_x], self._thr[r], raw[r], self._still[r], upd,
                     after_frames=self.absorb_after_frames, frame_no=self.frames,
                     scratch=(self._dist[r], self._hit[r], self._old[r]))

    def _adapt(self, r: slice, raw: np.ndarray, mind: np.ndarray, bg: np.ndarray, near: np.ndarray) -> None:
        """Raise the match distance where the background moves (see module docstring); ``near``:
        rows ``r`` of where objects are or were (their flips are edges, not blinking)."""
        base = self.match_distance
        if self.noise_sigma is not None:
            base = max(base, self.noise_k * SQRT2 * self.noise_sigma)
        adapt_distance(mind[r], raw[r], self._prev_raw[r], bg, near, base=base, dmin=self._dmin[r],
                       blink=self._blink[r], thr=self._thr[r], scratch=(self._flips[r], self._extra[r]))
