#!/usr/bin/env python3
"""Fit the weights of the click's extent score (sensekit/vision/extent.py) and print held-out figures.

Cases: every clip of ``--clips`` (``NAME.mp4`` + ``NAME_gt.csv``), the start frames of
``benchmarks/track_eval.py`` (0, 1/3 and 2/3 of the clip, at least 6 frames in so the motion
cues have their history), its 5 clicks (the true box's centre and 25 % off it), each seen at
the ``--scales`` of track_eval (0.5, 1 and 2: the object half and twice as large), so that no
object size is favoured. For each case every proposal around the click gets its cues
(``extent.features``); a proposal is right when its box is within 25 % of the true width and
height and overlaps the truth with IoU > 0.5. The weights maximise the likelihood of picking
a right proposal among each case's proposals (a conditional logit, L2 penalty ``--l2``), once
with the motion cues and once without (a still picture, or too short a history).

``--sources highway,people,hands`` adds the click cases of other real objects
(``extent_sources.py``: cars of the CDnet highway clip with their history, people and hands on
stills) to **every** fit, each case weighted ``--source-weight``; the tracking clips stay
leave-one-clip-out. Without ``--sources`` (the shipped weights) only the tracking clips are used.

Printed: leaving one clip out, each clip's cases scored with the weights fitted on the others:
the share whose chosen box is the right size and the share with IoU > 0.5, per scale; with
``--check-on`` sources, each such source's cases scored by a fit that never saw that source
(footage from other cameras and scenes than the developer clips).
Written (``--out``, default sensekit/vision/extent_model.py): the weights fitted on all clips,
and each fold's (``held_out.held_out(clip)``; ``track_eval.py --held-out``).

``--chosen-hash`` prints a hash of the box each case chooses with the shipped weights and with
each fold's, with and without motion, and fits nothing: a change meant to leave every chosen
box as it was (a faster cue) must print the same hash as before it.

``--trees`` prints the same tables for boosted trees (scikit-learn's HistGradientBoosting
regressing each proposal's IoU from its cues and its ``context`` among the click's other
proposals) and writes nothing: held out they do worse than the logit (docs/tracking.md).

``--motion-proposals`` puts the motion-coherent regions (``sensekit/evaluation/vision/motion_proposals.py``)
in every pool with a history (use a cache of its own: a cache holds the pools it was made with).
``--motion-edge`` adds the motion-boundary cue (``sensekit/evaluation/vision/motion_edge.py``) to
the motion cues (a cache of its own too: it has one more column).

Usage: .venv/bin/python benchmarks/train_extent.py [--clips DIR] [--cache cues.npz] [--l2 100]
           [--sources highway,people,hands] [--source-weight 1] [--check-on highway,people,hands]
           [--source-cache extra.npz] [--trees] [--motion-proposals] [--motion-edge]
Cost: ~2-4 min to collect the cues of the tracking clips on a loaded 2-core machine, ~3 min
for the other sources (2010 cases); each fit takes seconds to a minute.
"""
from __future__ import annotations

import argparse
import pprint
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from extent_sources import SOURCES, cases as source_cases
from track_eval import scale_box, scale_view

from sensekit.evaluation.vision.evaluate import click_points, clip_names, frames_of, iou, load_clip, size_ok, \
    start_frames
from sensekit.evaluation.vision.extent_experiment import experiment
from sensekit.vision.extent import (HISTORY_FRAMES, ExtentExperiment, box_ious, consensus_values, feature_names,
                                    features, pool_proposals)

MODEL_PY = REPO / "sensekit" / "vision" / "extent_model.py"
TEMPERATURES = (0.0, 0.25, 0.5, 1.0, 2.0)          # consensus temperatures tried (0: the top score)
TREE_TEMPERATURES = (0.0, 0.02, 0.05, 0.1, 0.25)   # for ``--trees`` (its scores are IoUs, 0-1)
#: the views of each other source: cars are small (x1, x2), people large (x0.5, x1)
SOURCE_SCALES = {"highway": [1.0, 2.0], "people": [0.5, 1.0], "hands": [0.5, 1.0, 2.0]}


def starts_of(clip: Any) -> list[tuple[int, list[np.ndarray], tuple[float, float]]]:
    """(start frame, the frames up to it, ``max(HISTORY_FRAMES)`` before and the start itself,
    the centre of the object's next 100 boxes) for every start of ``clip``."""
    K = max(HISTORY_FRAMES)
    wanted = sorted(set(start_frames(len(clip.truth))))
    kept: dict[int, list[np.ndarray]] = {}
    for k, frame in enumerate(frames_of(clip)):
        for s in wanted:
            if s - K <= k <= s:
                kept.setdefault(s, []).append(frame)
        if k >= max(wanted):
            break
    out = []
    for s in wanted:
        run = clip.truth[s:s + 100]
        out.append((s, kept[s], (float(np.mean(run[:, 0] + run[:, 2] / 2)), float(np.mean(run[:, 1] + run[:, 3] / 2)))))
    return out


class Rows:
    """Cues and labels of every proposal of every case, as ``collect`` returns them."""

    def __init__(self) -> None:
        self.rows: dict[str, list[Any]] = {k: [] for k in ("cues", "size_ok", "iou", "case", "clip", "scale", "box",
                                                            "made")}
        self.cases = 0
        self.experiment: ExtentExperiment | None = None    # what the pools and cues hold (None: as shipped)

    def add(self, frame: np.ndarray, history: list[np.ndarray], truth: np.ndarray,
            clicks: list[tuple[float, float]], clip: int, factor: float) -> None:
        for px, py in clicks:
            props, flow = pool_proposals(frame, px, py, history, experiment=self.experiment)
            self.rows["cues"].append(features(frame, px, py, props, history, flow=flow, experiment=self.experiment))
            made = np.zeros(len(props), bool)        # the motion-coherent regions: after the colour chains
            made[sum(p.steps for p in props if p.step == 0):] = True
            self.rows["made"].append(made)
            self.rows["size_ok"].append([size_ok(p.box, truth) for p in props])
            self.rows["iou"].append([iou(p.box, truth) for p in props])
            self.rows["box"].append(np.array([p.box for p in props], np.float64).reshape(-1, 4))
            for key, v in (("case", self.cases), ("clip", clip), ("scale", factor)):
                self.rows[key].append(np.full(len(props), v))
            self.cases += 1

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v) for k, v in self.rows.items() if v}    # a subclass may fill no "made"


def collect(folder: Path, names: list[str], scales: list[float], make_rows: type[Rows] = Rows,
            exp: ExtentExperiment | None = None) -> dict[str, np.ndarray]:
    """Cues and labels of every proposal of every case (see the module docstring); ``make_rows``:
    a ``Rows`` with more in each click's pool (``person_pool_eval.PersonRows``); ``exp``: the
    extent experiment of the pools and cues (None: as shipped)."""
    rows = make_rows()
    rows.experiment = exp
    for ci, name in enumerate(names):
        clip = load_clip(folder, name)
        for s, history, centre in starts_of(clip):
            for factor in scales:
                views = [scale_view(f, factor, centre) for f in history]
                frames = [v[0] for v in views]
                truth = scale_box(clip.truth[s][None], views[-1][1])[0]
                rows.add(frames[-1], frames[:-1], truth, list(click_points(truth).values()), ci, factor)
        print(f"  {name}: {rows.cases} cases", file=sys.stderr, flush=True)
    return rows.arrays()


def collect_sources(data: Path, sources: tuple[str, ...], make_rows: type[Rows] = Rows,
                    exp: ExtentExperiment | None = None) -> dict[str, np.ndarray]:
    """The cases of ``extent_sources`` (their ``clip`` is ``-1 - `` the source's index in
    ``SOURCES``: never a tracking clip), each at its ``SOURCE_SCALES``; ``make_rows`` and ``exp``
    as ``collect``'s."""
    rows = make_rows()
    rows.experiment = exp
    for name in sources:
        i = SOURCES.index(name)
        for _src, factor, frame, history, truth, clicks in source_cases(data, SOURCE_SCALES[name], (name,)):
            rows.add(frame, history, truth, clicks, -1 - i, factor)
        print(f"  {name}: {rows.cases} cases", file=sys.stderr, flush=True)
    return rows.arrays()


def fit(cues: np.ndarray, right: np.ndarray, case: np.ndarray, l2: float, weight: np.ndarray | None = None
        ) -> dict[str, list[float]]:
    """Conditional logit: per case, softmax over its proposals; maximise the probability of
    its right ones (cases with none or only right ones carry no information), each case
    weighted by ``weight`` (per row; the case's first row counts; default 1)."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    mean, std = cues.mean(0), cues.std(0) + 1e-9
    z = (cues - mean) / std
    groups = [np.nonzero(case == c)[0] for c in np.unique(case)]
    groups = [g for g in groups if right[g].any() and not right[g].all()]
    cw = np.ones(len(groups)) if weight is None else np.array([weight[g[0]] for g in groups])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for g, c in zip(groups, cw):
            zg, yg = z[g], right[g]
            s = zg @ w
            a, b = logsumexp(s), logsumexp(s[yg])
            total += c * (a - b)
            grad += c * (zg.T @ np.exp(s - a) - zg[yg].T @ np.exp(s[yg] - b))
        m = float(cw.sum())
        return total / m + l2 * float(w @ w) / m, grad / m + 2 * l2 * w / m

    w = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B").x
    return {"mean": [round(float(v), 6) for v in mean], "std": [round(float(v), 6) for v in std],
            "weights": [round(float(v), 6) for v in w]}


def choose(model: dict[str, Any], cues: np.ndarray, boxes: np.ndarray) -> int:
    """The proposal ``measure_extent`` takes: the consensus of the scores at the model's temperature
    (a tree model, ``--trees``: its predicted IoU from the cues and ``context``)."""
    return int(np.argmax(choice_values(model, cues, boxes)))


def choice_values(model: dict[str, Any], cues: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """What ``choose`` maximises, for every proposal (``extent.consensus_values`` of the model's
    scores): the values ``measure_pool`` gives a click's pool."""
    if "predict" in model:
        s = model["predict"](np.hstack([cues, context(boxes)]))
    else:
        s = ((cues - np.asarray(model["mean"])) / np.asarray(model["std"])) @ np.asarray(model["weights"])
    return consensus_values(boxes, s, temperature=float(model.get("temperature", 0.0)))


def context(boxes: np.ndarray) -> np.ndarray:
    """Each proposal against the others of its click: the rank of its area (0-1), its log
    area over the median's and over the largest's, its mean IoU with the others."""
    a = np.log(boxes[:, 2] * boxes[:, 3])
    rank = (np.argsort(np.argsort(a)) + 0.5) / len(a)
    return np.stack([rank, a - np.median(a), a - a.max(), box_ious(boxes).mean(1)], 1)


def fit_trees(cues: np.ndarray, boxes: np.ndarray, right: np.ndarray, case: np.ndarray,
              iou_: np.ndarray) -> dict[str, Any]:
    """``--trees``: scikit-learn's HistGradientBoostingRegressor (depth 4, 200 rounds at 0.05,
    40 per leaf) on the cues and ``context``, regressing the IoU with the truth (halved when
    the size is wrong), then the consensus temperature as for the logit."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits

    ctx = np.zeros((len(case), 4))
    for c in np.unique(case):
        g = np.nonzero(case == c)[0]
        ctx[g] = context(boxes[g])
    reg = HistGradientBoostingRegressor(max_iter=200, learning_rate=0.05, max_depth=4, min_samples_leaf=40,
                                        l2_regularization=1.0, random_state=0)
    with threadpool_limits(1):
        reg.fit(np.hstack([cues, ctx]), np.where(right, iou_, 0.5 * iou_))
    model: dict[str, Any] = {"predict": reg.predict}
    model["temperature"] = pick_temperature(model, cues, boxes, right, case)
    return model


def pick_temperature(model: dict[str, Any], cues: np.ndarray, boxes: np.ndarray, right: np.ndarray,
                     case: np.ndarray) -> float:
    """The consensus temperature (of ``TEMPERATURES``) that takes a right proposal in most of
    these cases (the training clips' own: the held-out clip is not looked at)."""
    groups = [np.nonzero(case == c)[0] for c in np.unique(case)]
    best, best_t = -1.0, 0.0
    for t in TREE_TEMPERATURES if "predict" in model else TEMPERATURES:
        m = dict(model, temperature=t)
        got = float(np.mean([right[g[choose(m, cues[g], boxes[g])]] for g in groups]))
        if got > best + 1e-9:
            best, best_t = got, t
    return best_t


def fit_model(cues: np.ndarray, boxes: np.ndarray, right: np.ndarray, case: np.ndarray, l2: float,
              weight: np.ndarray | None = None) -> dict[str, Any]:
    """The weights (``fit``) and then the consensus temperature, on the same cases."""
    model: dict[str, Any] = fit(cues, right, case, l2, weight)
    model["temperature"] = pick_temperature(model, cues, boxes, right, case)
    return model


def _options(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--cache", type=Path, default=None, help="keep the cues in this .npz (reused when it exists)")
    ap.add_argument("--l2", type=float, default=100.0,
                    help="L2 penalty (default 100, the shipped weights; chosen among 0.1-300 on the held-out table)")
    ap.add_argument("--sources", default="", help=f"other sources always in training, of {','.join(SOURCES)}")
    ap.add_argument("--source-weight", type=float, default=1.0, help="weight of each other source's case (default 1)")
    ap.add_argument("--check-on", default="", help="other sources to score with fits that never saw them")
    ap.add_argument("--source-cache", type=Path, default=None, help="keep the other sources' cues in this .npz")
    ap.add_argument("--trees", action="store_true",
                    help="print the held-out tables of boosted trees on the cues and their context (writes nothing)")
    ap.add_argument("--chosen-hash", action="store_true",
                    help="print a hash of every case's chosen box (shipped and fold weights) and fit nothing")
    ap.add_argument("--motion-proposals", action="store_true",
                    help="the motion-coherent regions in every pool with a history (extent_experiment.py)")
    ap.add_argument("--motion-edge", action="store_true",
                    help="the motion-boundary cue among the motion cues (extent_experiment.py; not shipped)")
    ap.add_argument("--out", type=Path, default=MODEL_PY)
    return ap.parse_args(argv)


def _cached(path: Path | None, make: Any) -> dict[str, np.ndarray]:
    if path is not None and path.is_file():
        return dict(np.load(path))
    data: dict[str, np.ndarray] = make()
    if path is not None:
        arrays: dict[str, Any] = data
        np.savez(path, **arrays)
    return data


class Data:
    """The cases of the tracking clips (``clip`` >= 0) and of the other sources (< 0), as arrays."""

    def __init__(self, track: dict[str, np.ndarray], other: dict[str, np.ndarray] | None, source_weight: float):
        track = dict(track, made=track.get("made", np.zeros(len(track["case"]), bool)))
        if other is not None and len(other["case"]):
            other = dict(other, case=other["case"] + track["case"].max() + 1,
                         made=other.get("made", np.zeros(len(other["case"]), bool)))
            track = {k: np.concatenate([track[k], other[k]]) for k in track}
        self.cues, self.case, self.clip, self.scale, self.boxes = (
            track[k] for k in ("cues", "case", "clip", "scale", "box"))
        self.iou = track["iou"]
        self.made = track["made"].astype(bool)       # motion-coherent regions: never in a still click's pool
        self.sized, self.hits = track["size_ok"].astype(bool), self.iou > 0.5
        self.trees = False                           # --trees: fit_trees instead of the logit
        self.kinds = KINDS                           # each fit's columns (``kinds``: of the run's experiment)
        self.right = self.sized & self.hits
        self.weight = np.where(self.clip < 0, source_weight, 1.0)
        # the stills have no history: they train only the weights without the motion cues
        self.moving = (self.clip >= 0) | (self.clip == -1 - SOURCES.index("highway"))
        self.train = self.clip >= 0                  # the rows any fit may use (the tracking clips, --sources)

    def fit(self, rows: np.ndarray, kind: str, l2: float) -> dict[str, Any]:
        """The fit on ``rows`` of ``self.train`` (motion: those with history)."""
        rows = rows & self.train & (self.moving if kind == "motion" else ~self.made)
        sl = self.kinds[kind]
        if self.trees:
            return fit_trees(self.cues[rows][:, sl], self.boxes[rows], self.right[rows], self.case[rows],
                             self.iou[rows])
        return fit_model(self.cues[rows][:, sl], self.boxes[rows], self.right[rows], self.case[rows], l2,
                         self.weight[rows])

    def scored(self, model: dict[str, Any], kind: str, rows: np.ndarray) -> tuple[float, float, int]:
        """Right size, IoU > 0.5 (shares) and the number of the cases of ``rows`` (motion: with history)."""
        ok, hit = [], []
        for c in np.unique(self.case[rows & (self.moving if kind == "motion" else True)]):
            g = np.nonzero((self.case == c) & ((kind == "motion") | ~self.made))[0]
            best = g[choose(model, self.cues[g][:, self.kinds[kind]], self.boxes[g])]
            ok.append(bool(self.sized[best]))
            hit.append(bool(self.hits[best]))
        return (float(np.mean(ok)), float(np.mean(hit)), len(ok)) if ok else (np.nan, np.nan, 0)


def kinds(exp: ExtentExperiment | None = None) -> dict[str, slice]:
    """The cue columns of each fit: all of them with motion, those after the motion cues still
    (the cues of ``exp``, an extent experiment; None: as shipped)."""
    nm = len(feature_names(exp)) - len(feature_names(exp, motion=False))
    return {"motion": slice(0, None), "still": slice(nm, None)}


#: the shipped cues' columns of each fit
KINDS = kinds()


def held_out_table(d: Data, names: list[str], scales: list[float], l2: float) -> dict[str, dict[str, Any]]:
    """Print each clip's cases scored by the fit without it; return the folds."""
    folds = {name: {k: d.fit(d.clip != ci, k, l2) for k in KINDS} for ci, name in enumerate(names)}
    print(f"held out (each clip with the weights fitted on the other {len(names) - 1}): "
          "first box right size / IoU > 0.5")
    print(f"{'cues':8s} {'scale':>6s}  " + "  ".join(f"{n[:14]:>14s}" for n in names) + "      mean")
    for kind in KINDS:
        for factor in scales:
            cells = [d.scored(folds[name][kind], kind, (d.clip == ci) & (d.scale == factor))[:2]
                     for ci, name in enumerate(names)]
            print(f"{kind:8s} x{factor:<5g}  " + "  ".join(f"{a:6.2f} / {b:4.2f}" for a, b in cells)
                  + f"  {np.mean([a for a, _ in cells]):4.2f} / {np.mean([b for _, b in cells]):4.2f}")
    for factor in scales:                      # the best the score could do
        some = [float(np.mean([d.right[d.case == c].any()
                               for c in np.unique(d.case[(d.clip == ci) & (d.scale == factor)])]))
                for ci in range(len(names))]
        print(f"{'some':8s} x{factor:<5g}  " + "  ".join(f"{a:13.2f}" for a in some) + f"  {np.mean(some):11.2f}"
              + "   (share of cases where some proposal is right)")
    print("consensus temperatures (chosen on each fold's training clips): " + ", ".join(
        f"{name} {folds[name]['motion']['temperature']:g}/{folds[name]['still']['temperature']:g}" for name in names))
    return folds


def source_table(d: Data, check: tuple[str, ...], l2: float) -> None:
    """Print each other source's cases scored by a fit on the tracking clips and the
    ``--sources`` other than that source."""
    print("other sources, each scored by a fit that never saw it: right size / IoU > 0.5 (cases)")
    for name in check:
        src = -1 - SOURCES.index(name)
        for kind in KINDS:
            got = d.scored(d.fit(d.clip != src, kind, l2), kind, d.clip == src)
            if got[2]:
                print(f"  {name:8s} {kind:7s} {got[0]:4.2f} / {got[1]:4.2f} ({got[2]})")


def _lean(model: dict[str, dict[str, Any]], nm: int) -> dict[str, dict[str, Any]]:
    """The still fit without its mean and std when they are the motion fit's (its columns'
    own, after its ``nm`` motion cues): ``extent._weights`` takes them from there."""
    m, s = model["motion"], model["still"]
    if m["mean"][nm:] == s["mean"] and m["std"][nm:] == s["std"]:
        return {"motion": m, "still": {k: v for k, v in s.items() if k not in ("mean", "std")}}
    return model


def write_model(path: Path, shipped: dict[str, Any], folds: dict[str, dict[str, Any]], about: str,
                exp: ExtentExperiment | None = None) -> None:
    names = feature_names(exp)
    nm = len(names) - len(feature_names(exp, motion=False))
    shipped, folds = _lean(shipped, nm), {k: _lean(v, nm) for k, v in folds.items()}
    text = (f'"""The weights of ``extent.py``\'s proposal score: written by ``benchmarks/train_extent.py``\n'
            f"(do not edit by hand; {about}).\n\n"
            "``ACTIVE`` is what ``measure_extent`` uses (the fit on every clip); ``FOLDS[clip]`` the fit\n"
            "without that clip (``held_out.held_out``). Each: the cues' mean and std and a weight per cue\n"
            f"(``extent.FEATURES``; \"still\" without the {nm} motion cues, and without a mean and std\n"
            "when they are the motion fit's last columns).\n\"\"\"\n"
            "from typing import Any\n\n"
            f"ACTIVE: dict[str, Any] = {pprint.pformat(shipped, width=80, compact=True)}\n\n"
            f"FOLDS: dict[str, dict[str, Any]] = {pprint.pformat(folds, width=80, compact=True)}\n")
    path.write_text(text)
    print(f"wrote {path} ({len(names)} cues)")


def _names(text: str) -> tuple[str, ...]:
    names = tuple(v for v in text.split(",") if v)
    bad = [v for v in names if v not in SOURCES]
    if bad:
        raise SystemExit(f"unknown source {', '.join(bad)}; sources: {', '.join(SOURCES)}")
    return names


def chosen_hash(track: dict[str, np.ndarray], names: list[str], cols: dict[str, slice] = KINDS) -> str:
    """A hash of the box each case chooses with the shipped weights and each fold's (the
    clip's), with and without motion (``extent_model``, as ``measure_extent`` scores); ``cols``:
    ``kinds`` of the run's experiment."""
    import hashlib

    from sensekit.vision import extent_model

    nm = cols["still"].start
    chosen = []
    for c in np.unique(track["case"]):
        g = np.nonzero(track["case"] == c)[0]
        for model in (extent_model.ACTIVE, extent_model.FOLDS[names[int(track["clip"][g[0]])]]):
            for kind in cols:
                m = dict(model[kind])
                if "mean" not in m:
                    m["mean"], m["std"] = model["motion"]["mean"][nm:], model["motion"]["std"][nm:]
                chosen.append(track["box"][g[choose(m, track["cues"][g][:, cols[kind]], track["box"][g])]])
    return f"{len(chosen)} choices, sha1 {hashlib.sha1(np.array(chosen).tobytes()).hexdigest()[:12]}"


def main(argv: list[str] | None = None) -> int:
    args = _options(argv)
    exp = experiment(motion_proposals=args.motion_proposals, motion_edge=args.motion_edge)
    names = clip_names(args.clips)
    scales = [float(v) for v in args.scales.split(",")]
    sources, check = _names(args.sources), _names(args.check_on)
    track = _cached(args.cache, lambda: collect(args.clips, names, scales, exp=exp))
    if args.chosen_hash:
        print(chosen_hash(track, names, kinds(exp)))
        return 0
    wanted = tuple(dict.fromkeys(sources + check))
    other = _cached(args.source_cache, lambda: collect_sources(SHARED_DATA, wanted, exp=exp)) if wanted else None
    if other is not None:                     # a cache may hold more sources than asked for
        keep = np.isin(other["clip"], [-1 - SOURCES.index(n) for n in wanted])
        other = {k: v[keep] for k, v in other.items()}
    d = Data(track, other, args.source_weight)
    d.train = np.isin(d.clip, [-1 - SOURCES.index(n) for n in sources]) | (d.clip >= 0)
    d.trees = args.trees
    d.kinds = kinds(exp)
    folds = held_out_table(d, names, scales, args.l2)
    if check:
        source_table(d, check, args.l2)
    if args.trees:
        return 0
    shipped = {k: d.fit(d.train, k, args.l2) for k in KINDS}
    about = (f"l2 {args.l2:g}, {len(np.unique(d.case[d.clip >= 0]))} cases of {len(names)} clips at scales "
             f"{args.scales}" + (f"; always in training: {', '.join(sources)} (weight {args.source_weight:g})"
                                 if sources else ""))
    write_model(args.out, shipped, folds, about, exp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
