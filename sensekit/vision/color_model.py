"""ColorModel: the colour-likelihood tracker behind ``ColorTracker(method="model")``.

Joint 16x16x16 BGR histograms of the object box and of its surround give, per colour, the
probability that a pixel belongs to the object (``H_obj / (H_obj + H_surround)``, 0.5 if
unseen). ``start`` learns them from a picked ``Segment`` (the mask's pixels count twice; the
first frame outside the box joins the surround, weighted ``scene_weight`` times the ring's
pixel count). ``update`` back-projects the table in a search window (``search`` box sizes
around the last position, the whole frame while lost), takes the box-sized window of highest
mean probability weighted by a Gaussian motion prior (``motion_sigma`` box sizes), adapts
size and aspect (``scale_rate``) and blends the histograms with ``learn_rate``. Each frame
the best window's 8x8x8 colour histogram is compared with the picked box's (``appearance``,
the Bhattacharyya coefficient; ``similarity``): below ``appearance_below`` (above
``appearance_found`` while searching) the match is refused, so a model that drifted onto the
background, or a scene without the object, ends in ``color_lost``. While searching, ``ColorTracker``
may raise that bar (``at_least``: ``refind_ratio``) and keep the search near the edges the
object left by (``edge_band``: ``refind_edge``).

The settings (``search``, ``motion_sigma``, ``learn_rate``, ``scale_rate``, ``surround``,
``scene_weight``, ``lost_below``, ``found_above``, ``refind_edge``, ``refind_ratio``,
``appearance_below``, ``appearance_found``:
the ``tracker`` group) are read from the
owning ``ColorTracker`` on every call, so a change applies on the next frame. Cost: ~3-8 ms
per 640x480 frame, growing with the box size, not the frame size. Failure modes: drift when
the object is hidden for long or shares its colours with the surround (see ``color_tracker``).
"""
from __future__ import annotations

import cv2
import numpy as np

from sensekit.events import Box
from sensekit.settings import setting
from sensekit.vision.segment import Segment
from sensekit.vision.stages import bgr_to_packed_rgb, box_from_rect


__all__ = ["ColorModel", "MaskMatch", "similarity"]

#: the width and height factors the model tries each frame
_SIZE_STEPS = (0.92, 0.96, 1.0, 1.04, 1.08)

def _coarse_lut() -> np.ndarray:
    """16x16x16 bin index -> 8x8x8 bin index (the appearance check's coarser histogram)."""
    i = np.arange(16 ** 3)
    b, g, r = i >> 8, (i >> 4) & 15, i & 15
    return np.asarray(((b >> 1) << 6) | ((g >> 1) << 3) | (r >> 1), np.int32)


_COARSE = _coarse_lut()


def _appearance(idx: np.ndarray) -> np.ndarray:
    """The normalised 8x8x8 colour histogram of the 16x16x16 bin indices ``idx``."""
    h = np.bincount(_COARSE[idx.ravel()], minlength=512).astype(np.float64)
    total = h.sum()
    out: np.ndarray = h / total if total > 0 else h
    return out


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Bhattacharyya coefficient of two normalised histograms: 1 the same, 0 nothing shared."""
    return float(np.sqrt(a * b).sum())


#: one frame's match: found, box, union box, raw cx, raw cy, area in px, confidence
MaskMatch = tuple[bool, Box, Box, float, float, int, float]


def _bin_index(img: np.ndarray) -> np.ndarray:
    """Joint 16x16x16 BGR bin index (int32) of every pixel."""
    q = img >> 4
    idx = q[..., 0].astype(np.int32)
    idx <<= 4
    idx |= q[..., 1]
    idx <<= 4
    idx |= q[..., 2]
    return idx


def _clip_rect(cx: float, cy: float, w: float, h: float, fw: int, fh: int) -> tuple[int, int, int, int]:
    x0 = int(round(cx - w / 2))
    y0 = int(round(cy - h / 2))
    x1 = int(round(cx + w / 2))
    y1 = int(round(cy + h / 2))
    return max(0, x0), max(0, y0), min(fw, x1), min(fh, y1)


class ModelSettings:
    """The model method's settings, declared here, next to the code that reads them on every
    call; ``ColorTracker`` inherits them into its ``tracker`` group (a ``Tunable`` takes the
    settings of its plain mixins) and hands itself to ``ColorModel``."""

    search = setting(2.0, "search window around the last position (model)", unit="box sizes", lo=0.25,
                     hi=10)
    motion_sigma = setting(1.5, "width of the motion prior (model)", unit="box sizes", lo=0.05, hi=100)
    learn_rate = setting(0.02, "how fast the colour model follows the object (model)", lo=0, hi=1)
    scale_rate = setting(0.2, "how fast the box follows size and aspect changes (model)", lo=0, hi=1)
    surround = setting(0.6, "width of the surround ring (model)", unit="box sizes", lo=0.1, hi=5)
    scene_weight = setting(1.0, "weight of the first frame outside the box in the surround (model)",
                           lo=0, hi=100)
    lost_below = setting(0.3, "model confidence below which the object is lost", lo=0, hi=1)
    found_above = setting(0.45, "model confidence above which it is found again", lo=0, hi=1)
    refind_edge = setting(
        1.0, "an object lost over the picture's edge is looked for only this near that edge until a new "
        "view (its centre within half a box plus this of it; 0: everywhere) (model)", unit="box sizes",
        lo=0, hi=100)
    refind_ratio = setting(
        0.7, "while lost, a window is found again only if its similarity to the pick is at least this share "
        "of the object's typical one while tracked (the median of its last tracked frames; 0: off) (model)",
        lo=0, hi=2)
    appearance_below = setting(0.45, "similarity of the box's colours to the picked object's below which "
                               "it is lost (model)", lo=0, hi=1)
    appearance_found = setting(0.55, "similarity to the picked object's colours above which it is found "
                               "again (model)", lo=0, hi=1)


class ColorModel:
    """Object/surround colour histograms and the tracked box (centre ``cx, cy``, size ``w, h``)."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self.bins = 16
        self.ho: np.ndarray | None = None
        self.hs: np.ndarray | None = None
        self.prob_lut: np.ndarray | None = None
        self.cx = self.cy = self.w = self.h = 0.0
        self.reference: np.ndarray | None = None       # the picked object's 8x8x8 histogram
        self.appearance = 0.0                           # last box's similarity to it
        self.last_mask: np.ndarray | None = None       # the search window's likely pixels
        self.last_mask_origin: tuple[int, int] = (0, 0)

    @property
    def ready(self) -> bool:
        return self.ho is not None

    def start(self, frame: np.ndarray, picked: Segment) -> int | None:
        """Learn from the picked box; the mask's pixels count twice in the object histogram
        (they surely are the object; the rest of the box may be background). Returns the
        object's typical colour as ``0xRRGGBB`` (for swatches), ``None`` for an empty mask."""
        x, y, w, h = (float(v) for v in picked.box)
        self.cx, self.cy, self.w, self.h = x + w / 2, y + h / 2, w, h
        idx = _bin_index(frame)
        ho, hs = self._histograms(idx, 0, 0)
        x0, y0, x1, y1 = _clip_rect(self.cx, self.cy, w, h, frame.shape[1], frame.shape[0])
        inside = picked.mask[y0:y1, x0:x1]
        ho += np.bincount(idx[y0:y1, x0:x1][inside], minlength=self.bins ** 3)
        self.reference = _appearance(idx[y0:y1, x0:x1])
        self.appearance = 1.0
        color = None
        if inside.any():
            color = bgr_to_packed_rgb(np.median(frame[y0:y1, x0:x1][inside], axis=0))
        scene_weight = self.settings.scene_weight
        if scene_weight > 0:
            scene = np.bincount(idx.ravel(), minlength=self.bins ** 3).astype(np.float64)
            scene -= np.bincount(idx[y0:y1, x0:x1].ravel(), minlength=self.bins ** 3)
            hs += scene * (scene_weight * hs.sum() / max(1.0, scene.sum()))
        self.ho, self.hs = ho, hs
        self._update_lut()
        return color

    def _histograms(self, idx: np.ndarray, ox: int, oy: int) -> tuple[np.ndarray, np.ndarray]:
        """Object and surround histograms; ``idx`` covers the frame from ``(ox, oy)``."""
        n = self.bins ** 3
        H, W = idx.shape
        fw, fh = W + ox, H + oy
        x0, y0, x1, y1 = _clip_rect(self.cx, self.cy, self.w, self.h, fw, fh)
        m = self.settings.surround * max(self.w, self.h)
        X0, Y0, X1, Y1 = _clip_rect(self.cx, self.cy, self.w + 2 * m, self.h + 2 * m, fw, fh)
        X0, Y0 = max(X0, ox), max(Y0, oy)
        x0, y0 = max(x0, ox), max(y0, oy)
        obj = np.bincount(idx[y0 - oy:y1 - oy, x0 - ox:x1 - ox].ravel(), minlength=n).astype(np.float64)
        whole = np.bincount(idx[Y0 - oy:Y1 - oy, X0 - ox:X1 - ox].ravel(), minlength=n).astype(np.float64)
        return obj, np.maximum(whole - obj, 0.0)

    def _update_lut(self) -> None:
        assert self.ho is not None and self.hs is not None
        s = self.ho + self.hs
        self.prob_lut = np.where(s > 1e-9, self.ho / np.maximum(s, 1e-9), 0.5).astype(np.float32)

    def update(self, frame: np.ndarray, *, search_all: bool, lost: bool, at_least: float = 0.0,
               edge_band: float | None = None,
               edges: tuple[bool, bool, bool, bool] = (True, True, True, True)) -> MaskMatch:
        """Find the object in ``frame``: near the last position, or everywhere with
        ``search_all`` (with ``edge_band``, only centres within half a box plus that many box sizes of one of the
        ``edges``: left, right, top, bottom); ``lost``
        raises the bar to ``found_above``; ``at_least`` raises the appearance bar further (a view
        that changed at once, see ``ColorTracker``)."""
        assert self.prob_lut is not None and self.ho is not None and self.hs is not None
        cfg = self.settings
        fh, fw = frame.shape[:2]
        sigma: float | None
        if search_all:
            X0, Y0, X1, Y1 = 0, 0, fw, fh                          # search everywhere
            sigma = None
        else:
            sw = self.w * (1 + 2 * cfg.search)
            sh = self.h * (1 + 2 * cfg.search)
            X0, Y0, X1, Y1 = _clip_rect(self.cx, self.cy, sw, sh, fw, fh)
            sigma = cfg.motion_sigma
        if X1 - X0 < 2 or Y1 - Y0 < 2:
            return False, (0, 0, 0, 0), (0, 0, 0, 0), 0.0, 0.0, 0, 0.0
        idx = _bin_index(frame[Y0:Y1, X0:X1])
        prob = np.take(self.prob_lut, idx)
        bw = max(3, int(round(self.w)))
        bh = max(3, int(round(self.h)))
        mean = cv2.boxFilter(prob, -1, (bw, bh), normalize=True, borderType=cv2.BORDER_CONSTANT)
        if sigma is not None:
            gx = np.arange(X0, X1, dtype=np.float32) - np.float32(self.cx)
            gy = np.arange(Y0, Y1, dtype=np.float32) - np.float32(self.cy)
            wx = np.exp(-0.5 * (gx / np.float32(sigma * self.w)) ** 2)
            wy = np.exp(-0.5 * (gy / np.float32(sigma * self.h)) ** 2)
            score = mean * wy[:, None] * wx[None, :]
        else:
            score = mean
        if edge_band is not None:          # lost over the edge: it comes back over an edge
            xs = np.arange(X0, X1, dtype=np.float32)
            ys = np.arange(Y0, Y1, dtype=np.float32)
            mx, my = (0.5 + edge_band) * self.w, (0.5 + edge_band) * self.h
            left, right, top, bottom = edges
            near = (((ys <= my) & top) | ((ys >= fh - my) & bottom))[:, None] | \
                (((xs <= mx) & left) | ((xs >= fw - mx) & right))[None, :]
            score = np.where(near, mean, np.float32(-1))
        iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
        conf = float(mean[iy, ix])
        ncx = X0 + ix + (0.5 if bw % 2 == 0 else 0.0)
        ncy = Y0 + iy + (0.5 if bh % 2 == 0 else 0.0)
        assert self.reference is not None
        cx0, cy0, cx1, cy1 = _clip_rect(ncx, ncy, self.w, self.h, fw, fh)
        self.appearance = similarity(self.reference, _appearance(idx[max(0, cy0 - Y0):cy1 - Y0,
                                                                      max(0, cx0 - X0):cx1 - X0]))
        conf = min(conf, self.appearance)
        searching = search_all or lost
        if (conf < (cfg.found_above if searching else cfg.lost_below)
                or self.appearance < max(at_least, cfg.appearance_found if searching else cfg.appearance_below)):
            return False, (0, 0, 0, 0), (0, 0, 0, 0), 0.0, 0.0, 0, conf
        self.cx, self.cy = float(ncx), float(ncy)
        if cfg.scale_rate > 0:
            self._adapt_scale(prob, X0, Y0)
        x0, y0, x1, y1 = _clip_rect(self.cx, self.cy, self.w, self.h, fw, fh)
        box = box_from_rect((x0, y0, x1 - x0, y1 - y0))
        likely = (prob >= 0.6).view(np.uint8)
        union = box_from_rect(cv2.boundingRect(likely))
        if union != (0, 0, 0, 0):
            union = (union[0] + X0, union[1] + Y0, union[2], union[3])
        area = int(np.count_nonzero(likely[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]))
        self.last_mask = likely
        self.last_mask_origin = (X0, Y0)
        if cfg.learn_rate > 0:
            ho, hs = self._histograms(idx, X0, Y0)     # the surround is clipped to the window
            a = cfg.learn_rate
            self.ho *= 1 - a
            self.ho += a * ho
            self.hs *= 1 - a
            self.hs += a * hs
            self._update_lut()
        return True, box, union, self.cx, self.cy, area, conf

    def _adapt_scale(self, prob: np.ndarray, X0: int, Y0: int) -> None:
        """Try widths and heights 0.92..1.08 times the current ones; keep the pair whose inside
        is most likely and whose ring (1.4 times the box) least, blended in at ``scale_rate``."""
        ii = cv2.integral(prob)
        H, W = prob.shape

        def mass(w: float, h: float) -> tuple[float, int]:
            x0 = int(np.clip(round(self.cx - w / 2 - X0), 0, W))
            x1 = int(np.clip(round(self.cx + w / 2 - X0), 0, W))
            y0 = int(np.clip(round(self.cy - h / 2 - Y0), 0, H))
            y1 = int(np.clip(round(self.cy + h / 2 - Y0), 0, H))
            return float(ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]), max(1, (x1 - x0) * (y1 - y0))

        best, best_a, best_b = -np.inf, 1.0, 1.0
        for a in _SIZE_STEPS:
            for b in _SIZE_STEPS:
                si, ai = mass(self.w * a, self.h * b)
                so, ao = mass(self.w * a * 1.4, self.h * b * 1.4)
                score = si / ai - (so - si) / max(1, ao - ai)
                if score > best:
                    best, best_a, best_b = score, a, b
        rate = self.settings.scale_rate
        self.w = max(4.0, self.w * (1.0 + (best_a - 1.0) * rate))
        self.h = max(4.0, self.h * (1.0 + (best_b - 1.0) * rate))
