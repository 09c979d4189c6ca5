#!/usr/bin/env python3
"""Person boxes as proposals of the click's pool, with cues saying where they come from, held out.

The same cases and fit as ``train_extent.py`` (the developer clips, 3 starts, 5 clicks, x0.5 /
x1 / x2; leave one clip out; the people of the pose stills scored by the fit on all five clips,
which never saw them), with the pool of each click grown by the person boxes holding it:
OpenCV's HOG people detector (``_person_boxes.hog_boxes``) and MediaPipe Pose's segmentation
(``_person_boxes.person_boxes``). A person box gets the image cues of ``extent.features`` (colour
separation, edges, motion, agreement, aspect, where the click is) and constant merge cues, and
four more columns for every proposal: from HOG (0/1), HOG's margin, from Pose (0/1), Pose's
score (a constant cue of the person boxes is absorbed by its 0/1 column). Variants: the pool
alone (as shipped, the extra columns dropped), + HOG, + Pose, + both; each re-fitted per fold.

Needs the ``hands`` extra (OpenCV 4.11 has HOG, mediapipe has Pose): run it with
``.venv-hands/bin/python``. ``--cache`` keeps the cues.

    .venv-hands/bin/python benchmarks/person_pool_eval.py [--cache /tmp/person_pool.npz]

Cost: ~5-8 min to collect on a loaded 2-core machine; the fits ~1 min per variant.
"""
from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from extent_sources import SOURCES
from train_extent import Data, Rows, _cached, collect, collect_sources, held_out_table

from sensekit.evaluation.vision.evaluate import clip_names, iou, size_ok
from sensekit.vision.extent import features
from _person_boxes import hog_boxes, person_boxes
from sensekit.vision.proposals import Proposal, Window, click_proposals

EXTRA = 4                       # from HOG, HOG margin, from Pose, Pose score


def person_proposals(frame: np.ndarray, x: float, y: float, detectors: tuple[str, ...] = ("hog", "pose")
                     ) -> tuple[list[Proposal], np.ndarray]:
    """The person boxes holding the click as ``Proposal``s (constant merge cues: a window of
    their own size, no merges, filled) and their extra columns."""
    out, extra = [], []
    finders = {"hog": hog_boxes, "pose": person_boxes}
    for j, detector in enumerate(("hog", "pose")):
        found = finders[detector](frame, x, y) if detector in detectors else []
        for p in found:
            bx, by, bw, bh = (float(v) for v in p.box)
            if bw < 2 or bh < 2:
                continue
            win = Window(np.zeros((1, 1), np.int32), (int(bx), int(by)), (int(bw), int(bh)), 1.0, max(bw, bh))
            out.append(Proposal((bx, by, bw, bh), 100 + 10 * j + p.window, 1, 1, 0.0, 0.0, 1.0, (), win))
            extra.append([1.0, p.score, 0.0, 0.0] if detector == "hog" else [0.0, 0.0, 1.0, p.score])
    return out, np.array(extra, np.float64).reshape(-1, EXTRA)


class PersonRows(Rows):
    """``train_extent.Rows`` with the person boxes in each click's pool and a ``source`` per
    row (0 superpixels, 1 HOG, 2 Pose)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows["source"] = []

    def add(self, frame, history, truth, clicks, clip, factor) -> None:  # type: ignore[no-untyped-def]
        for px, py in clicks:
            props = click_proposals(frame, px, py)
            extra_props, extra = person_proposals(frame, px, py)
            allp = props + extra_props
            cues = features(frame, px, py, allp, history)
            cols = np.vstack([np.zeros((len(props), EXTRA)), extra])
            self.rows["cues"].append(np.hstack([cues, cols]))
            self.rows["size_ok"].append([size_ok(p.box, truth) for p in allp])
            self.rows["iou"].append([iou(p.box, truth) for p in allp])
            self.rows["box"].append(np.array([p.box for p in allp], np.float64).reshape(-1, 4))
            self.rows["source"].append(np.concatenate([np.zeros(len(props)), 1 + extra[:, 2]]))
            for key, v in (("case", self.cases), ("clip", clip), ("scale", factor)):
                self.rows[key].append(np.full(len(allp), v))
            self.cases += 1


def variant(arrays: dict[str, np.ndarray], keep: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The rows of the sources ``keep`` (0 always) and the extra columns of those sources only."""
    rows = np.isin(arrays["source"], keep)
    out = {k: v[rows] for k, v in arrays.items() if k != "source"}
    n = out["cues"].shape[1] - EXTRA
    cols = list(range(n)) + [n + c for c in ((0, 1) if 1 in keep else ()) + ((2, 3) if 2 in keep else ())]
    out["cues"] = out["cues"][:, cols]             # a constant column has no spread to standardise by
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--l2", type=float, default=100.0)
    ap.add_argument("--write-models", type=Path, default=None,
                    help="pickle the + HOG variant's fits (all clips and each fold) for person_track_eval.py")
    args = ap.parse_args(argv)
    names = clip_names(args.clips)
    scales = [0.5, 1.0, 2.0]
    track = _cached(args.cache, lambda: collect(args.clips, names, scales, PersonRows))
    other_path = None if args.cache is None else args.cache.with_suffix(".people.npz")
    other = _cached(other_path, lambda: collect_sources(SHARED_DATA, ("people",), PersonRows))
    src = -1 - SOURCES.index("people")
    for name, keep in (("pool as shipped", (0,)), ("+ HOG", (0, 1)), ("+ Pose", (0, 2)), ("+ both", (0, 1, 2))):
        print(f"\n=== {name} ===")
        d = Data(variant(track, keep), variant(other, keep), 1.0)
        folds = held_out_table(d, names, scales, args.l2)
        if name == "+ HOG" and args.write_models is not None:
            every = {k: d.fit(d.clip >= 0, k, args.l2) for k in ("motion", "still")}
            args.write_models.write_bytes(pickle.dumps({"active": every, "folds": folds}))
        for kind in ("still",):
            fit = d.fit(d.clip >= 0, kind, args.l2)
            for factor in (0.5, 1.0):
                got = d.scored(fit, kind, (d.clip == src) & (d.scale == factor))
                print(f"  people (pose stills) x{factor:g} {kind}: right size / IoU > 0.5 {got[0]:.2f} / {got[1]:.2f}"
                      f" ({got[2]} clicks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
