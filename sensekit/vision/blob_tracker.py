"""BlobTracker: the blobs of a motion mask with ids that stay while each one is in view.

Per frame (``update(mask, t)``):

1. **Regions** of the mask (``sensekit.vision.blobs.find_blobs``: at least ``min_area_px``
   pixels, pieces closer than ``join_px`` joined), a region at least ``split_aspect`` times as
   wide as tall with two heads on its top outline split into people
   (``sensekit.vision.blob_split``; the dip between the heads at least ``split_dip`` of its
   height, or half that while two confirmed tracks are predicted inside the region, so a couple
   split once stays split when their heads touch for a few frames).
2. **Prediction.** Each track moves its box by its velocity (constant velocity; the velocity
   is an alpha-beta filter of the centroid, gain ``velocity_gain``).
3. **Assignment.** Cost ``(1 - IoU) + distance / size`` between each predicted box and each
   region, pairs further than ``gate`` track sizes and with no overlap excluded, solved by SciPy's
   ``linear_sum_assignment``; each track may also stay unmatched at the cost of the farthest
   match the gate allows, so a track is never pushed onto a far region only so that another
   can take its own (ids passed along a chain).
4. **Split and merge.** A region that nobody took, smaller than a matched track's region and
   mostly (> half its box) inside that track's predicted box grown 1.5x, is a fragment of it
   (a person whose belt matched the wall) and is merged into the track's region (box, area,
   centroid). A track's size follows its own region only, so it cannot grow by swallowing
   its neighbours one after another. Parts split off one region are never fragments. A track
   that lost its region while its predicted centre is inside another track's region has
   merged with it (two people passing, a group): it coasts on its prediction, kept inside
   that region, for up to ``max_merged_frames``, and takes its id back when the region splits
   again. Any other unmatched track coasts for ``max_missing_frames``.
5. **Lifetime.** A region nobody took starts a tentative track; after ``confirm_frames``
   frames in a row it gets the next id (1, 2, 3... in order of confirmation: the same frames
   give the same ids) and a ``blob_enter``; a confirmed track gone for longer than it may coast
   gives ``blob_leave``. A tentative track that misses a frame is dropped.

Reported (``blobs``, every frame): confirmed tracks seen this frame, with their region's box,
centroid and area, and the filtered velocity in pixels per second. ``zone_enter`` /
``zone_leave`` follow a blob's centroid through the zones given to ``set_zones`` (the motion
detector's, in pixels).

Settings: the ``blobs`` group (``sensekit settings blobs``). ``min_area_px`` 150, ``join_px`` 0
(off), ``confirm_frames`` 5 and ``max_missing_frames`` 10 were chosen by MOTA on the first half
of CDnet highway (``benchmarks/blob_eval.py``) and reported on the second; ``max_merged_frames``
60, ``gate`` 1.5 and ``velocity_gain`` 0.5 were set by hand on synthetic crossings;
``split_aspect`` 0.65 and ``split_dip`` 0.08 on the first highway half (cars stay whole) and
the PETS 2009 people clip (``benchmarks/blob_split_eval.py``).

Cost: labelling plus a few us per track; the assignment is O(n^3) in blobs (n < 50 in
practice). Failure modes: two people who enter together one behind the other are one blob
until they part (side by side they are split when their heads show); a blob
that merges for longer than ``max_merged_frames`` loses the hidden id; ids swap when two people
cross while hidden and change direction behind each other; a stopped person fades into the
background model after ``background.absorb_after_frames`` and leaves.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.events import BlobEnter, BlobInfo, BlobLeave, Blobs, Box, Event, ZoneEnter, ZoneLeave
from sensekit.settings import Tunable, setting
from sensekit.vision.blob_split import SPLIT_DIP, wide_enough
from sensekit.vision.blobs import Region, box_iou, find_blobs, split_region

__all__ = ["BlobTracker", "Track"]

_FAR = 1e6
_DEFAULT_DT = 1.0 / 30.0
_FRAGMENT_GROWTH = 1.3       # a fragment may not make the box more than this much larger than predicted
_SIZE_GAIN = 0.3             # how fast a track's size follows its own region


@dataclass(slots=True)
class Track:
    """One tracked blob. Positions in pixels, velocity in pixels per second."""
    cx: float
    cy: float
    w: float
    h: float
    first_t: float
    vx: float = 0.0
    vy: float = 0.0
    id: int = 0                         # 0 until confirmed
    hits: int = 1
    missing: int = 0
    merged: int = 0                     # frames hidden inside another track's region
    region: Region | None = None        # this frame's region (None when not seen)
    zones: set[str] = field(default_factory=set)
    seen_cx: float = 0.0                # where its own region was last seen (set on creation)
    seen_cy: float = 0.0
    seen_t: float = 0.0                 # when its own region was last seen

    def __post_init__(self) -> None:
        self.seen_cx, self.seen_cy, self.seen_t = self.cx, self.cy, self.first_t

    def predicted_box(self, dt: float) -> tuple[float, float, float, float]:
        px, py = self.cx + self.vx * dt, self.cy + self.vy * dt
        return (px - self.w / 2, py - self.h / 2, self.w, self.h)


_FBox = tuple[float, float, float, float]    # a predicted box, x, y, w, h in (fractional) pixels


def _merge_regions(a: Region, b: Region) -> Region:
    ax, ay, aw, ah = a.box
    bx, by, bw, bh = b.box
    x0, y0 = min(ax, bx), min(ay, by)
    x1, y1 = max(ax + aw, bx + bw), max(ay + ah, by + bh)
    area = a.area_px + b.area_px
    return Region((x0, y0, x1 - x0, y1 - y0), (a.cx * a.area_px + b.cx * b.area_px) / area,
                  (a.cy * a.area_px + b.cy * b.area_px) / area, area)


def _grows_by(a: Region, b: Region) -> float:
    """Area of the box around both regions."""
    ax, ay, aw, ah = a.box
    bx, by, bw, bh = b.box
    return float((max(ax + aw, bx + bw) - min(ax, bx)) * (max(ay + ah, by + bh) - min(ay, by)))


def _inside(x: float, y: float, box: Box) -> bool:
    bx, by, bw, bh = box
    return bx <= x < bx + bw and by <= y < by + bh


def _overlap_fraction(inner: Box, outer: tuple[float, float, float, float]) -> float:
    """Share of ``inner``'s box that lies inside ``outer``."""
    ix, iy, iw, ih = inner
    ox, oy, ow, oh = outer
    w = min(ix + iw, ox + ow) - max(ix, ox)
    h = min(iy + ih, oy + oh) - max(iy, oy)
    return max(0.0, w) * max(0.0, h) / max(1.0, float(iw * ih))


class BlobTracker(Tunable, section="blobs",
                  title="blobs: connected regions of the motion mask with ids"):
    """Blobs of a mask with stable ids. See the module docstring."""

    min_area_px = setting(150, "smallest region that is a blob", unit="px", lo=1, hi=10_000_000,
                          flag="--blob-min-area")
    join_px = setting(0, "pieces closer than this are one region (closing; 0 or 1: off)", unit="px",
                      lo=0, hi=255)
    split_aspect = setting(0.65, "a blob at least this many times as wide as tall is tried as people side "
                           "by side (0: off)", unit="width/height", lo=0, hi=10)
    split_dip = setting(SPLIT_DIP, "the dip between two heads on the blob's top outline that splits it",
                        unit="share of height", lo=0, hi=1)
    confirm_frames = setting(5, "frames in a row before a new blob gets its id", unit="frames",
                             lo=1, hi=1000)
    max_missing_frames = setting(10, "frames a lost blob keeps its id", unit="frames", lo=0, hi=10_000)
    max_merged_frames = setting(60, "frames a blob hidden in another keeps its id", unit="frames",
                                lo=0, hi=10_000)
    gate = setting(1.5, "farthest match, in track sizes, when the boxes do not overlap", unit="sizes",
                   lo=0, hi=100)
    velocity_gain = setting(0.5, "how fast the velocity follows the measured motion", unit="fraction",
                            lo=0, hi=1)

    emits: ClassVar[frozenset[str]] = frozenset({"blobs", "blob_enter", "blob_leave", "zone_enter",
                                                 "zone_leave"})

    @checked
    def __init__(self, *, zones: Mapping[str, Box] | None = None, **settings: Any) -> None:
        # scipy.optimize takes most of a second to import: made a tracker's cost, not every app's start
        from scipy.optimize import linear_sum_assignment

        self._solve: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] = linear_sum_assignment
        self.init_settings(settings)
        self.zones: dict[str, Box] = dict(zones or {})
        self.reset()

    def reset(self) -> None:
        """Forget every track; ids start again at 1."""
        self.tracks: list[Track] = []
        self.next_id = 1
        self._last_t: float | None = None
        self.regions: list[Region] = []

    def set_zones(self, zones: Mapping[str, Box]) -> None:
        """The zones (pixels) whose entries and exits are reported."""
        self.zones = dict(zones)

    @property
    def visible(self) -> list[Track]:
        """Confirmed tracks seen on the last frame, by id."""
        return sorted((tr for tr in self.tracks if tr.id and tr.region is not None), key=lambda tr: tr.id)

    # -- per frame ----------------------------------------------------------------------
    def update(self, mask: np.ndarray, t: float) -> list[Event]:
        """Track the regions of ``mask`` (HxW uint8) at time ``t``; the frame's events."""
        if self._pending:
            self.apply_pending()
        dt = _DEFAULT_DT if self._last_t is None or t <= self._last_t else t - self._last_t
        self._last_t = t
        regions = find_blobs(mask, min_area_px=self.min_area_px, join_px=self.join_px,
                             split_aspect=self.split_aspect, split_dip=self.split_dip)
        tracks = self.tracks
        preds = [tr.predicted_box(dt) for tr in tracks]
        if self.split_aspect > 0:
            regions = self._split_held(mask, regions, tracks, preds)
        self.regions = regions
        taken = self._assign(tracks, preds, regions)         # track index -> region index
        merged_into, used = _absorb_fragments(regions, preds, taken)
        events: list[Event] = []
        kept: list[Track] = []
        for i, tr in enumerate(tracks):
            region = merged_into.get(i)
            if region is not None:
                self._follow(tr, region, regions[taken[i]].box, dt, t, events)
                kept.append(tr)
                continue
            tr.region = None
            if not tr.id:
                continue                                   # a tentative track that missed: gone
            if self._coast(tr, preds[i], merged_into):
                kept.append(tr)
            else:
                events += [ZoneLeave(t=t, zone=z, id=tr.id) for z in sorted(tr.zones)]
                events.append(BlobLeave(t=t, id=tr.id, cx=tr.seen_cx, cy=tr.seen_cy,
                                        seconds=tr.seen_t - tr.first_t))
        for j, r in enumerate(regions):
            if j not in used:
                kept.append(Track(r.cx, r.cy, float(r.box[2]), float(r.box[3]), t, region=r))
                if self.confirm_frames <= 1:
                    self._confirm(kept[-1], r, t, events)
        self.tracks = kept
        visible = self.visible
        events.extend(self._zone_events(visible, t))
        infos = tuple(BlobInfo(id=tr.id, box=tr.region.box, cx=tr.region.cx, cy=tr.region.cy,
                               area_px=tr.region.area_px, vx=tr.vx, vy=tr.vy)
                      for tr in visible if tr.region is not None)
        events.insert(0, Blobs(t=t, count=len(infos), blobs=infos))
        return events

    def _split_held(self, mask: np.ndarray, regions: list[Region], tracks: list[Track],
                    preds: list[_FBox]) -> list[Region]:
        """A wide region in which two or more confirmed tracks are predicted (people who were
        apart, or split, a frame ago) is split with half the dip (``blobs.split_dip`` / 2)."""
        out: list[Region] = []
        for r in regions:
            if wide_enough(r.box[2], r.box[3], self.split_aspect) and sum(
                    1 for tr, pb in zip(tracks, preds)
                    if tr.id and not tr.missing and _inside(pb[0] + pb[2] / 2, pb[1] + pb[3] / 2, r.box)) >= 2:
                out += split_region(mask, r, aspect=self.split_aspect, dip=self.split_dip / 2,
                                    min_area_px=self.min_area_px)
            else:
                out.append(r)
        if len(out) > len(regions):
            out.sort(key=lambda r: (-r.area_px, r.label))
        return out

    def _assign(self, tracks: list[Track], preds: list[_FBox], regions: list[Region]) -> dict[int, int]:
        """Match tracks to regions (Hungarian, on overlap with the prediction and distance in
        track sizes; pairs beyond ``gate`` sizes that do not overlap never match)."""
        if not (tracks and regions):
            return {}
        cost = np.full((len(tracks), len(regions)), _FAR)
        for i, (tr, pb) in enumerate(zip(tracks, preds)):
            size = max(tr.w, tr.h, 4.0)
            pcx, pcy = pb[0] + pb[2] / 2, pb[1] + pb[3] / 2
            for j, r in enumerate(regions):
                iou = box_iou(pb, r.box)
                d = float(np.hypot(r.cx - pcx, r.cy - pcy)) / size
                if iou > 0 or d <= self.gate:
                    cost[i, j] = (1.0 - iou) + d
        # each track may also stay unmatched, at the cost of the farthest match the gate allows:
        # a track is never pushed onto a far region only so that another can take its own
        miss = np.full((len(tracks), len(tracks)), _FAR)
        np.fill_diagonal(miss, 1.0 + self.gate)
        full = np.hstack([cost, miss])
        rows, cols = self._solve(full)
        return {int(i): int(j) for i, j in zip(rows, cols) if j < len(regions) and cost[i, j] < _FAR}

    def _follow(self, tr: Track, region: Region, own: Box, dt: float, t: float, events: list[Event]) -> None:
        """A matched track moves to its region: velocity, size (of its own region only), hits."""
        px, py = tr.cx + tr.vx * dt, tr.cy + tr.vy * dt
        g = 1.0 if tr.hits == 1 else self.velocity_gain      # the first step measures it
        tr.vx += g * (region.cx - px) / dt
        tr.vy += g * (region.cy - py) / dt
        tr.cx, tr.cy = region.cx, region.cy
        tr.seen_cx, tr.seen_cy, tr.seen_t = region.cx, region.cy, t
        if tr.hits == 1:
            tr.w, tr.h = float(own[2]), float(own[3])
        else:
            tr.w += _SIZE_GAIN * (own[2] - tr.w)
            tr.h += _SIZE_GAIN * (own[3] - tr.h)
        tr.region = region
        tr.hits += 1
        tr.missing = tr.merged = 0
        if not tr.id and tr.hits >= self.confirm_frames:
            self._confirm(tr, region, t, events)

    def _confirm(self, tr: Track, region: Region, t: float, events: list[Event]) -> None:
        tr.id = self.next_id
        self.next_id += 1
        events.append(BlobEnter(t=t, id=tr.id, box=region.box, cx=region.cx, cy=region.cy))

    def _coast(self, tr: Track, pb: _FBox, merged_into: dict[int, Region]) -> bool:
        """A confirmed track that missed: hidden in another blob (it stays inside it), or
        coasting on its prediction. Returns whether it is still alive."""
        pcx, pcy = pb[0] + pb[2] / 2, pb[1] + pb[3] / 2
        host = next((merged_into[h] for h in merged_into if _inside(pcx, pcy, merged_into[h].box)), None)
        if host is not None:                           # hidden in another blob: stay inside it
            hx, hy, hw, hh = host.box
            tr.cx = min(max(pcx, hx), hx + hw - 1)
            tr.cy = min(max(pcy, hy), hy + hh - 1)
            tr.merged += 1
            return tr.merged <= self.max_merged_frames
        tr.cx, tr.cy = pcx, pcy
        tr.missing += 1
        return tr.missing <= self.max_missing_frames

    def _zone_events(self, visible: list[Track], t: float) -> list[Event]:
        if not self.zones:
            return []
        out: list[Event] = []
        for tr in visible:
            now = {name for name, box in self.zones.items() if _inside(tr.cx, tr.cy, box)}
            out += [ZoneLeave(t=t, zone=z, id=tr.id) for z in sorted(tr.zones - now)]
            out += [ZoneEnter(t=t, zone=z, id=tr.id) for z in sorted(now - tr.zones)]
            tr.zones = now
        return out


def _absorb_fragments(regions: list[Region], preds: list[_FBox],
                      taken: dict[int, int]) -> tuple[dict[int, Region], set[int]]:
    """Each matched track's region, with the untaken regions mostly inside its predicted box
    (fragments of it) merged in; and the regions used so."""
    used = set(taken.values())
    merged_into: dict[int, Region] = {i: regions[j] for i, j in taken.items()}
    for j, r in enumerate(regions):
        if j in used:
            continue
        best, best_f = -1, 0.5
        for i in taken:
            if regions[taken[i]].label == r.label:
                continue                      # a part split off the same region is never a fragment
            f = _overlap_fraction(r.box, preds[i])
            if (f > best_f and r.area_px < regions[taken[i]].area_px
                    and _grows_by(merged_into[i], r) <= _FRAGMENT_GROWTH * preds[i][2] * preds[i][3]):
                best, best_f = i, f
        if best >= 0:
            merged_into[best] = _merge_regions(merged_into[best], r)
            used.add(j)
    return merged_into, used
