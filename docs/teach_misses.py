#!/usr/bin/env python3
"""The figure of docs/pose.md's taught gestures: the hands the taught model names wrong on v04.

    .venv-hands/bin/python docs/teach_misses.py [--out docs/teach_misses.jpg]

Needs the hands extra and ../shared/data. v04 (an ASL signer, Intel IoT DevKit sample-videos,
CC BY 4.0) is the one hand clip whose licence lets it be shown. The weakest split of
``benchmarks/teach_eval.py``: the model taught on the second half of each sign, the stage
run with it over the clip; every 2nd test frame (first halves) where a hand's reported
gesture is wrong, cropped to the signer, labelled with the frame, the true sign and the
stage's answer per hand (r/l: the person's right or left hand), up to 18 frames.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

from hands_eval import frames_of  # noqa: E402
from teach_eval import DATA, hands_of, v04_splits  # noqa: E402

from sensekit.vision.taught import TaughtGestures, hand_features  # noqa: E402

CROP = (slice(60, 480), slice(110, 530))        # the signer from the chin down to the hips
TILE_PX = 200


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "teach_misses.jpg")
    args = parser.parse_args(argv)
    if not (DATA / "videos").is_dir():
        sys.exit(f"hand clips not found at {DATA}")
    frames = frames_of("v04")
    _, _, teach, truth = v04_splits(hands_of(frames))[1]
    model = TaughtGestures().fit({name: [hand_features(h.points) for h in rows] for name, rows in teach.items()})
    answers: dict[int, list[str]] = {}
    wrong: set[int] = set()
    for h in hands_of(frames, model):
        if h.index in truth:
            answers.setdefault(h.index, []).append(f"{h.handedness[0]} {h.gesture}")
            if h.gesture != truth[h.index]:
                wrong.add(h.index)
    shown = sorted(wrong)[::2][:18]
    tiles = []
    for k in shown:
        tile = cv2.resize(frames[k].image[CROP], (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
        cv2.rectangle(tile, (0, 0), (TILE_PX, 20 + 16 * len(answers[k])), (255, 255, 255), -1)
        cv2.putText(tile, f"{k}: {truth[k]}", (4, 15), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 120, 0), 1, cv2.LINE_AA)
        for j, text in enumerate(answers[k]):
            cv2.putText(tile, text, (4, 31 + 16 * j), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 200), 1, cv2.LINE_AA)
        tiles.append(tile)
    cols = 6
    tiles += [np.full_like(tiles[0], 255)] * (-len(tiles) % cols)
    sheet = np.vstack([np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)])
    cv2.imwrite(str(args.out), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"{args.out}: {len(shown)} of the {len(wrong)} test frames with a hand named wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
