#!/usr/bin/env python3
"""Do steer's arriving vehicles reach a target the colour tracker follows on real footage?

For every clip of ``../shared/data/video/tracking`` (``NAME.mp4`` with ``NAME_gt.csv``) the
steer app runs headless exactly as ``sensekit run steer --source file:NAME.mp4 --headless
--mode "arrive at colour" --pick X,Y`` does (``AppHost``, ``Script``), with ``X,Y`` the centre
of frame 0's true box in the mirrored picture: a user's click on the object. Per clip, over the
steps where the tracker has a target: the target's speed in window px/s (median, p90; from
one camera frame to the next), the vehicles' mean distance to it (the app's
``mean_gap_to_target``; median) and the share of steps it is under ``--catch`` px (default 60:
the vehicles aim at spots 30 px around the target).

``--set KEY=VALUE`` sets any setting (``steer.speed=300``); ``--preset book``; ``--skip N``
leaves out the first N steps (the vehicles start scattered over the view).

    .venv/bin/python benchmarks/steer_catch.py [--only coke] [--set steer.speed=300] [--preset book]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA, data_refused

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.app.script import Script
from sensekit.app.sources import bundled_source, open_spec
from sensekit.cli.tuning import apply_chosen, chosen_values
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options


def first_click(gt_csv: Path, width: int) -> tuple[int, int]:
    """Frame 0's true box centre in the mirrored picture, as ``--pick`` takes it."""
    row = gt_csv.read_text().splitlines()[1].split(",")
    x, y, w, h = (float(v) for v in row[1:5])
    return int(round(width - 1 - (x + w / 2))), int(round(y + h / 2))


def run_clip(clip: Path | None, *, settings: dict[str, Any] | None = None, preset: str | None = None,
             max_steps: int | None = None) -> list[dict[str, Any]]:
    """The steer app's state after every step of ``clip`` in "arrive at colour" mode, picked at
    frame 0's true centre (``None``: the bundled demo recording and the app's own colour);
    each with the camera frame index it saw."""
    import cv2

    cls = load("steer")
    if clip is None:
        source, pick = bundled_source(cls), None
        source.open()
    else:
        cap = cv2.VideoCapture(str(clip))
        width = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        cap.release()
        pick = first_click(clip.with_name(clip.stem + "_gt.csv"), width)
        source = open_spec(cls, f"file:{clip}")
    host = AppHost(cls, source, RunOptions(headless=True, script=Script(pick=pick, mode="arrive at colour")))
    chosen = chosen_values(argparse.Namespace(preset=preset, profile=None))
    chosen.values.update(settings or {})
    apply_chosen(host.tuning, chosen)
    states: list[dict[str, Any]] = []
    try:
        while not host.runner.ended and (max_steps is None or len(states) < max_steps):
            host.step()
            frame = host.runner.latest_frame
            s = host.app.state()
            s["frame"] = None if frame is None else frame.index
            states.append(s)
    finally:
        host.close()
        source.close()
    return states


def summary(states: list[dict[str, Any]], *, step_s: float, catch: float, skip: int) -> dict[str, float]:
    """Target speed (px/s, from one camera frame to the next; the clips are 30 fps, one frame a
    step) and gap over the steps with a target, after the first ``skip`` steps."""
    speeds: list[float] = []
    last, last_frame = None, None
    for s in states:
        at, frame = s["colour_at"], s["frame"]
        if at is None:
            last = None
            continue
        if frame != last_frame and last is not None and last_frame is not None and frame is not None:
            speeds.append(float(np.hypot(at[0] - last[0], at[1] - last[1])) / ((frame - last_frame) * step_s))
        if frame != last_frame:
            last, last_frame = at, frame
    gaps = np.array([s["mean_gap_to_target"] for s in states[skip:] if s["mean_gap_to_target"] is not None])
    sp = np.array(speeds) if speeds else np.array([np.nan])
    return {"target_px_s_median": float(np.median(sp)), "target_px_s_p90": float(np.percentile(sp, 90)),
            "gap_median": float(np.median(gaps)) if len(gaps) else float("nan"),
            "under_catch": float(np.mean(gaps < catch)) if len(gaps) else float("nan"),
            "steps_with_target": float(len(gaps)), "steps": float(len(states))}


def _number(text: str) -> Any:
    try:
        return float(text)
    except ValueError:
        return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)     # runs each clip to its end
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--preset", default=None)
    ap.add_argument("--catch", type=float, default=60.0)
    ap.add_argument("--skip", type=int, default=30)
    ap.add_argument("--demo", action="store_true", help="the bundled demo recording too (synthetic)")
    ap.add_argument("--demo-only", action="store_true", help="the bundled demo recording alone")
    args = ap.parse_args()
    names: list[str] | None = []
    if not args.demo_only:
        if args.clips == SHARED_DATA / "video" / "tracking" and data_refused(SHARED_DATA):
            return 2
        if (names := clips_to_run(args.clips, args.only)) is None:
            return REFUSED
    settings = {k: _number(v) for k, v in (kv.split("=", 1) for kv in args.set)}
    chosen: list[Path | None] = [args.clips / f"{name}.mp4" for name in names or []]
    for clip in ([None] if args.demo or args.demo_only else []) + chosen:
        states = run_clip(clip, settings=settings, preset=args.preset)
        line = {"clip": "demo" if clip is None else clip.stem, **{k: round(v, 3) for k, v in
                                      summary(states, step_s=1 / 30, catch=args.catch, skip=args.skip).items()}}
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
