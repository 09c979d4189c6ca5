"""How big is the clicked object? Scoring the proposals around a click by what says "one object".

``measure_extent(frame, x, y, history=())`` takes the nested regions holding the click
(``proposals.click_proposals``) and scores each by cues measured in the image, none of which
is a size:

- **colour separation**: 1 - the Bhattacharyya coefficient of the Lab histograms (4x8x8) of
  the box and of a ring half its size around it;
- **boundary edges**: the mean gradient magnitude along the box's border over the frame's mean,
  and over the mean in its ring (an object's border is stronger than what lies around it; a
  fragment's ring holds the rest of the object's edges: the can's silver side beside its logo);
- **merge order**: the similarity at which the region was formed and at which it was
  swallowed, its fill of its box, whether it is the bare superpixel or fills its window;
- **agreement**: how many proposals of the other windows have nearly the same box (IoU > 0.7);
- **where the click is**: its distance from the box's centre, in box widths and heights;
- **motion**, when frames before the click are given (``history``, oldest first, same size;
  2 and 6 frames back are used): dense optical flow (DIS) from those frames to this one; the
  difference between the median flow inside the box and in its ring, absolute (log) and over
  their spreads. A region that moves unlike its surround is an object; a fragment moves like
  the rest of the object around it; a leak holds both.

The score is a weighted sum of the standardised cues (``extent_model.py``, written by
``benchmarks/train_extent.py``: a conditional logit trained on the developer clips, one set
of weights with motion and one without). The box taken is not simply the highest-scoring
proposal's but the consensus of the scores (``consensus``): the proposal with the highest
IoU with all of them, each weighted by the softmax of its score at a temperature fitted with
the weights (a lone fragment or leak scoring a little above a cluster of similar boxes loses to
the cluster). Held-out
figures (each clip scored with the weights fitted on the others) are in ``docs/tracking.md``.

Cost: about 60 ms of CPU per click at 640x480 with a history (max ~75), ~36 ms without (one
thread, a loaded 2-core machine): the proposals (4 windows, ~34 ms), 2 optical flows at 320 px
(2 x 7-9 ms) with a history, the cues (~12 ms); measured by ``benchmarks/click_cost.py`` (CPU)
and ``benchmarks/track_eval.py`` (wall time), in ``docs/tracking.md``.
Experiments that add proposals or cues (not shipped) pass an ``ExtentExperiment`` down the
call (``experiment=``; None, the default, is the shipped extent): see docs/tracking.md.
Failure modes: when no proposal holds just the object (its colours are those of its surround
and it does not move), the best is a part of it or a part of the scene; with motion, an
object moved by a hand comes with the hand when the two separate from the surround alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import cv2
import numpy as np

from sensekit.vision import extent_model
from sensekit.vision.proposals import Proposal, click_proposals

__all__ = ["FEATURES", "MOTION_FEATURES", "features", "measure_extent", "HISTORY_FRAMES",
           "consensus", "box_ious", "scores",
           "consensus_values", "measure_pool", "pool_proposals", "ExtentExperiment", "feature_names"]

Rect = tuple[int, int, int, int]

#: frames back the motion cues compare with (``history`` must hold at least the largest)
HISTORY_FRAMES = (2, 6)

MOTION_FEATURES: tuple[str, ...] = ("motion_sep_2", "motion_log_2", "motion_sep_6", "motion_log_6")
#: the cues of a still picture too, after the motion cues
_STILL_FEATURES: tuple[str, ...] = (
    "window_fill", "merged_at", "next_merge", "merge_gap", "fill", "click_dx", "click_dy", "colour_sep", "edge",
    "agree", "aspect", "fills_window", "superpixel", "edge_over_ring")
FEATURES: tuple[str, ...] = MOTION_FEATURES + _STILL_FEATURES

#: ``f(proposals, flow, scale, x, y)``: more proposals for a click with a history
ProposalSource = Callable[[list[Proposal], np.ndarray, float, float, float], list[Proposal]]
#: ``f(flow or None, [(box, ring's outer box), ...])``: more motion cues, ``(n, k)``
MotionCues = Callable[[np.ndarray | None, list[tuple[Rect, Rect]]], np.ndarray]
#: ``f(frame, x, y, history)``: a whole measured pool, proposals and values, in place of ``measure_pool``'s
PoolMeasure = Callable[[np.ndarray, float, float, Sequence[np.ndarray]], tuple[list[Proposal], np.ndarray]]


@dataclass(frozen=True)
class ExtentExperiment:
    """What an experiment adds to the measured extent (not shipped): passed as ``experiment=``
    to ``measure_extent``, ``measure_pool``, ``pool_proposals``, ``features`` and ``scores``;
    None there is the shipped extent. ``proposals`` add to the pool of a click with a history
    (after the colour proposals); ``motion_cues`` give ``len(motion_names)`` more motion columns,
    after ``MOTION_FEATURES`` (0 without a history, like the others). ``weights``: the fit that
    scores the cues (a ``train_extent.py`` model file's ``ACTIVE``, with ``len(self.features)``
    motion weights, or one of its ``FOLDS`` for held-out figures: the evaluation's ``held_out``;
    None: the shipped ``extent_model.ACTIVE``). ``pool``: a pool measured another way, which
    ``measure_pool`` (and so ``measure_extent``) returns as it is (``benchmarks/person_track_eval.py``'s
    HOG person boxes)."""

    proposals: ProposalSource | None = None
    motion_cues: MotionCues | None = None
    motion_names: tuple[str, ...] = ()
    weights: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    pool: PoolMeasure | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.motion_cues is None) != (not self.motion_names):
            raise ValueError("ExtentExperiment: motion_cues and motion_names go together "
                             f"(got cues {self.motion_cues!r}, names {self.motion_names!r})")
        clash = set(self.motion_names) & set(FEATURES) or len(set(self.motion_names)) != len(self.motion_names)
        if clash:
            raise ValueError(f"ExtentExperiment: motion_names {self.motion_names!r} repeat a name")

    @property
    def motion_features(self) -> tuple[str, ...]:
        """The motion cues' names in a run with this experiment."""
        return MOTION_FEATURES + self.motion_names

    @property
    def features(self) -> tuple[str, ...]:
        """The names of ``features``' columns in a run with this experiment."""
        return self.motion_features + _STILL_FEATURES


def feature_names(experiment: ExtentExperiment | None = None, *, motion: bool = True) -> tuple[str, ...]:
    """The names of the cue columns (``FEATURES``; with ``experiment``, its); ``motion`` False:
    those a still picture is scored on (without the motion cues)."""
    names = FEATURES if experiment is None else experiment.features
    return names if motion else _STILL_FEATURES


def _motion_count(experiment: ExtentExperiment | None) -> int:
    return len(MOTION_FEATURES) + (0 if experiment is None else len(experiment.motion_names))


_LONG_PX = 320                   # the cues are measured on the frame shrunk to this long side
_MOTION_STEP = 2                 # the motion medians take every other pixel each way (3: tried, not kept)


def _small(frame: np.ndarray) -> tuple[np.ndarray, float]:
    H, W = frame.shape[:2]
    f = min(1.0, _LONG_PX / max(H, W))
    if f == 1.0:
        return frame, f
    return cv2.resize(frame, (round(W * f), round(H * f)), interpolation=cv2.INTER_AREA), f


def _grey(frame: np.ndarray) -> np.ndarray:
    g: np.ndarray = cv2.cvtColor(_small(frame)[0], cv2.COLOR_BGR2GRAY)
    return g


def _rects(box: Sequence[float], f: float, w: int, h: int) -> tuple[Rect, Rect]:
    """The box and its ring's outer box (half its long side around it) in the small frame,
    clipped: (x0, y0, x1, y1) each."""
    x, y, bw, bh = (v * f for v in box)
    x0, y0 = int(min(max(0.0, x), w - 1)), int(min(max(0.0, y), h - 1))
    x1, y1 = max(x0 + 1, int(min(float(w), np.ceil(x + bw)))), max(y0 + 1, int(min(float(h), np.ceil(y + bh))))
    m = max(2, int(0.5 * max(bw, bh)))
    return (x0, y0, x1, y1), (max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m))


def _lab_bins(small: np.ndarray) -> np.ndarray:
    """Each pixel's bin of the colour-separation histogram (Lab, 4x8x8 bins, L-major): the
    bins ``cv2.calcHist`` gives uint8 Lab over [0, 256) with those counts."""
    lab = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2Lab), np.uint8)
    out: np.ndarray = ((lab[..., 0] >> 6).astype(np.intp) * 64 + (lab[..., 1] >> 5).astype(np.intp) * 8
                       + (lab[..., 2] >> 5).astype(np.intp))
    return out


def _colour_sep(bins: np.ndarray, inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> float:
    """1 - the Bhattacharyya coefficient of the Lab histograms of the box and its ring
    (``bins``: ``_lab_bins``; the ring's counts are the outer box's less the box's)."""
    x0, y0, x1, y1 = inner
    X0, Y0, X1, Y1 = outer
    if (x1 - x0) * (y1 - y0) == (X1 - X0) * (Y1 - Y0):
        return 0.0
    hi = np.bincount(bins[y0:y1, x0:x1].ravel(), minlength=256).astype(np.float64)
    ho = np.bincount(bins[Y0:Y1, X0:X1].ravel(), minlength=256).astype(np.float64) - hi
    hi = hi / max(1.0, float(hi.sum()))
    ho = ho / max(1.0, float(ho.sum()))
    return 1.0 - float(np.sqrt(hi * ho).sum())


def _ring_edge(summed: np.ndarray, inner: Rect, outer: Rect, border: float) -> float:
    """The box border's gradient (``border``, a log) over the mean gradient of its ring (from
    the integral image ``summed``): an object's border is stronger than what lies around it;
    a fragment's ring holds the rest of the object's edges."""
    def total(r: Rect) -> float:
        x0, y0, x1, y1 = r
        return float(summed[y1, x1] - summed[y0, x1] - summed[y1, x0] + summed[y0, x0])
    area = (outer[2] - outer[0]) * (outer[3] - outer[1]) - (inner[2] - inner[0]) * (inner[3] - inner[1])
    if area <= 0:
        return 0.0
    return border - float(np.log(max(0.0, total(outer) - total(inner)) / area + 1e-3))


def _edge(grad: np.ndarray, inner: tuple[int, int, int, int]) -> float:
    x0, y0, x1, y1 = inner
    x1, y1 = x1 - 1, y1 - 1
    v = np.concatenate([grad[y0, x0:x1 + 1], grad[y1, x0:x1 + 1], grad[y0:y1 + 1, x0], grad[y0:y1 + 1, x1]])
    return float(np.log(v.mean() + 1e-3))


def _flow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    dis = cv2.DISOpticalFlow.create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    flow = np.zeros((*a.shape[:2], 2), np.float32)     # output only (no initial flow is used)
    out: np.ndarray = np.asarray(dis.calc(a, b, flow))
    return out


def _median(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=1)`` of a C-contiguous ``(k, n)`` array, to the bit, without its NaN
    check (a flow has none): a partition along the contiguous axis, several times faster."""
    n = a.shape[1]
    h = n // 2
    kth = h if n % 2 else (h - 1, h)
    part = np.partition(a, kth, axis=1)
    out: np.ndarray = np.mean(part[:, h - 1 + n % 2:h + 1], axis=1)
    return out


def _motion(flow: np.ndarray, inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]
            ) -> tuple[float, ...]:
    """The two motion cues of the box against its ring for each flow stacked in ``flow``
    (channels first, ``(2 * k, h, w)``: the medians of all the flows in one call each)."""
    k = flow.shape[0] // 2
    x0, y0, x1, y1 = inner
    X0, Y0, X1, Y1 = outer
    ring = np.ones((Y1 - Y0, X1 - X0), bool)
    ring[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0] = False
    m = _MOTION_STEP
    ring = ring[::m, ::m]                         # medians of thousands cost
    if ring.sum() < 4:
        none: tuple[float, ...] = (0.0, float(np.log(0.1))) * k
        return none
    inside = flow[:, y0:y1:m, x0:x1:m].reshape(2 * k, -1)
    around = flow[:, Y0:Y1:m, X0:X1:m][:, ring]
    mi, mr = _median(inside), _median(around)
    di, dr = inside - mi[:, None], around - mr[:, None]
    si = _median(np.hypot(di[0::2], di[1::2]))
    sr = _median(np.hypot(dr[0::2], dr[1::2]))
    out: tuple[float, ...] = ()
    for j in range(k):
        d = float(np.hypot(*(mi[2 * j:2 * j + 2] - mr[2 * j:2 * j + 2])))
        out += (d / (float(si[j]) + float(sr[j]) + 0.3), float(np.log(d + 0.1)))
    return out


def _flows(small: np.ndarray, history: Sequence[np.ndarray]) -> np.ndarray:
    """The flows from each ``HISTORY_FRAMES`` frame back to ``small`` (the frame at the cues'
    size), stacked channels first: ``(2 * len(HISTORY_FRAMES), h, w)``."""
    g1 = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return np.ascontiguousarray(np.concatenate([_flow(_grey(history[-k]), g1) for k in HISTORY_FRAMES],
                                               axis=2).transpose(2, 0, 1))


def box_ious(boxes: np.ndarray) -> np.ndarray:
    """The IoU of every pair of ``(n, 4)`` boxes (x, y, w, h): ``(n, n)``."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    x1, y1 = b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]
    ix = np.maximum(0.0, np.minimum(x1[:, None], x1[None]) - np.maximum(b[:, None, 0], b[None, :, 0]))
    iy = np.maximum(0.0, np.minimum(y1[:, None], y1[None]) - np.maximum(b[:, None, 1], b[None, :, 1]))
    inter = ix * iy
    area = b[:, 2] * b[:, 3]
    out: np.ndarray = inter / (area[:, None] + area[None] - inter)
    return out


def _agreement(proposals: Sequence[Proposal]) -> np.ndarray:
    """For each proposal, how many of the other windows' proposals have IoU > 0.7 with it."""
    iou = box_ious(np.array([p.box for p in proposals], np.float64))
    win = np.array([p.window for p in proposals])
    counts: np.ndarray = ((iou > 0.7) & (win[:, None] != win[None])).sum(1)
    return counts


def consensus(boxes: np.ndarray, s: np.ndarray, *, temperature: float) -> int:
    """The index of the box with the highest expected IoU with the others, each weighted by
    ``softmax(s / temperature)`` (a minimum-risk choice: it stays with the boxes the
    high-scoring proposals agree on, rather than a lone fragment or leak that scores a little
    higher); ``temperature`` 0: the highest score."""
    return int(np.argmax(consensus_values(boxes, s, temperature=temperature)))


def consensus_values(boxes: np.ndarray, s: np.ndarray, *, temperature: float) -> np.ndarray:
    """What ``consensus`` maximises, for every box: its expected IoU with the others under
    ``softmax(s / temperature)``; ``temperature`` 0: the scores themselves. The click's
    pool (``click_pool``) ranks its other guesses by it."""
    if temperature <= 0:
        return np.asarray(s, np.float64)
    p = np.exp((s - s.max()) / temperature)
    out: np.ndarray = box_ious(boxes) @ (p / p.sum())
    return out


def features(frame: np.ndarray, x: float, y: float, proposals: Sequence[Proposal],
             history: Sequence[np.ndarray] = (), *, flow: np.ndarray | None = None,
             experiment: ExtentExperiment | None = None) -> np.ndarray:
    """The cues of each proposal, ``(len(proposals), len(feature_names(experiment)))``; the
    motion columns are 0 without a long enough ``history``. ``flow``: the history's flows when
    already computed (``pool_proposals``), else they are computed here."""
    small, f = _small(frame)
    h, w = small.shape[:2]
    bins = _lab_bins(small)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    sx, sy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    # not cv2.magnitude: OpenCV 4.11-5.0 give last-bit different results for the same input by
    # where the arrays lie in memory (one call to the next), and a replay must score the same
    mag = np.sqrt(sx * sx + sy * sy)
    grad: np.ndarray = mag / (float(mag.mean()) + 1e-6)
    summed = cv2.integral(grad, sdepth=cv2.CV_64F)
    if flow is None and len(history) >= max(HISTORY_FRAMES):
        flow = _flows(small, history)
    nm = len(MOTION_FEATURES)
    out = np.zeros((len(proposals), len(FEATURES)))
    agree = _agreement(proposals)
    seen: dict[tuple[int, ...], tuple[float, ...]] = {}      # the same box at several steps
    for i, p in enumerate(proposals):
        inner, outer = _rects(p.box, f, w, h)
        key = inner + outer
        if key not in seen:
            seen[key] = ((_motion(flow, inner, outer) if flow is not None else ())
                         + (_colour_sep(bins, inner, outer), _edge(grad, inner)))
            seen[key] += (_ring_edge(summed, inner, outer, seen[key][-1]),)
        got = seen[key]
        row = out[i]
        row[:len(got) - 3] = got[:-3]
        bw, bh = p.box[2], p.box[3]
        rel = max(bw, bh) / p.win.side_px
        row[nm:] = (rel, p.merged_at, p.next_merge, p.merged_at - p.next_merge, p.fill,
                   abs(x - (p.box[0] + bw / 2)) / bw, abs(y - (p.box[1] + bh / 2)) / bh,
                   got[-3], got[-2],
                   agree[i],
                   abs(np.log(bh / bw)), rel > 0.9, p.step == 0, got[-1])
    if experiment is not None and experiment.motion_cues is not None:
        extra = experiment.motion_cues(flow, [_rects(p.box, f, w, h) for p in proposals])
        if extra.shape != (len(proposals), len(experiment.motion_names)):
            raise ValueError(f"ExtentExperiment: motion_cues gave shape {extra.shape} for {len(proposals)} "
                             f"proposals and the motion names {experiment.motion_names!r}")
        out = np.concatenate([out[:, :nm], extra, out[:, nm:]], axis=1)
    return out


def _fit(experiment: ExtentExperiment | None) -> Mapping[str, Any]:
    """The fit that scores the cues: the experiment's ``weights``, else the shipped
    ``extent_model.ACTIVE``."""
    if experiment is None or experiment.weights is None:
        return extent_model.ACTIVE
    return experiment.weights


def _weights(motion: bool, nm: int, experiment: ExtentExperiment | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The active fit's cue means, spreads and weights; a still fit without its own mean and
    std takes the motion fit's for its columns, after its ``nm`` motion ones (the same cases:
    ``train_extent.py`` writes them once)."""
    fit = _fit(experiment)
    m = fit["motion" if motion else "still"]
    if "mean" not in m:
        full = fit["motion"]
        return np.asarray(full["mean"][nm:]), np.asarray(full["std"][nm:]), np.asarray(m["weights"])
    return np.asarray(m["mean"]), np.asarray(m["std"]), np.asarray(m["weights"])


def temperature(*, motion: bool, experiment: ExtentExperiment | None = None) -> float:
    """The consensus temperature of the active weights (0: the top score; chosen with them;
    ``experiment``: its own weights when it has them)."""
    return float(_fit(experiment)["motion" if motion else "still"].get("temperature", 0.0))


def scores(cues: np.ndarray, *, motion: bool, experiment: ExtentExperiment | None = None) -> np.ndarray:
    """The weighted sum of the standardised cues (the motion columns only when ``motion``;
    ``cues``: ``features``' with the same ``experiment``)."""
    nm = _motion_count(experiment)
    mean, std, w = _weights(motion, nm, experiment)
    cols = cues if motion else cues[:, nm:]
    s: np.ndarray = ((cols - mean) / std) @ w
    return s


def measure_extent(frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray] = (), *,
                   experiment: ExtentExperiment | None = None) -> Proposal:
    """The best-scoring proposal around the click (see the module docstring). ``history``:
    frames before ``frame``, oldest first, of its size (fewer than 6: no motion cues);
    ``experiment``: ``ExtentExperiment`` (None: as shipped)."""
    props, values = measure_pool(frame, x, y, history, experiment=experiment)
    return props[int(np.argmax(values))]


def measure_pool(frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray] = (), *,
                 experiment: ExtentExperiment | None = None) -> tuple[list[Proposal], np.ndarray]:
    """Every proposal around the click and its consensus value (``consensus_values``; the
    highest is ``measure_extent``'s choice): the pool a click keeps for its other guesses; an
    ``experiment`` with a ``pool`` of its own: that one's."""
    if experiment is not None and experiment.pool is not None:
        return experiment.pool(frame, x, y, history)
    props, flow = pool_proposals(frame, x, y, history, experiment=experiment)
    motion = flow is not None
    cues = features(frame, x, y, props, flow=flow, experiment=experiment)
    boxes = np.array([p.box for p in props], np.float64)
    return props, consensus_values(boxes, scores(cues, motion=motion, experiment=experiment),
                                   temperature=temperature(motion=motion, experiment=experiment))


def pool_proposals(frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray] = (), *,
                   experiment: ExtentExperiment | None = None) -> tuple[list[Proposal], np.ndarray | None]:
    """The click's proposals and, with a long enough ``history`` (frames of ``frame``'s size),
    the flows of the motion cues (``None`` without); with an ``experiment`` that has
    ``proposals``, theirs are in the pool too (after the colour proposals)."""
    props = click_proposals(frame, x, y)
    history = [h for h in history if h.shape == frame.shape]
    if len(history) < max(HISTORY_FRAMES):
        return props, None
    small, f = _small(frame)
    flow = _flows(small, history)
    if experiment is not None and experiment.proposals is not None:
        props = props + experiment.proposals(props, flow, f, x, y)
    return props, flow


def motion_separation(frame: np.ndarray, boxes: Sequence[Sequence[float]], history: Sequence[np.ndarray]
                      ) -> np.ndarray:
    """How differently from its ring each box (x, y, w, h, frame px) moved: the mean of the
    ``motion_sep`` cues over ``HISTORY_FRAMES`` (``history`` as for ``measure_extent``, at least
    6 frames); ``(len(boxes),)``. A fragment of an object moves like the rest of it around it
    (low); the whole object moved by a hand, against a still wall, high."""
    small, f = _small(frame)
    h, w = small.shape[:2]
    flow = _flows(small, history)
    out = np.zeros(len(boxes))
    for i, b in enumerate(boxes):
        cues = _motion(flow, *_rects(b, f, w, h))
        out[i] = float(np.mean(cues[0::2]))
    return out
