"""A folder of tracking clips checked before a benchmark runs on it: a user's own footage.

A clip is ``NAME.mp4`` with ``NAME_gt.csv`` (``evaluate.load_clip``): a header ``frame,x,y,w,h``
and one row per frame, ``frame`` counting 0, 1, 2, ... and the box ``x, y, w, h`` in pixels,
inside the frame. ``checked_clips`` is what a benchmark's ``--clips DIR [--only A,B]`` runs:
every clip named (default: every ``NAME.mp4`` and every ``NAME_gt.csv`` of the folder, each
needing the other) is checked, and the first problem raises ``SourceError`` with one line
naming the file and, for a bad row, its line number (the header is line 1):

- a video without its CSV, or a CSV without its video; a folder with no clip at all;
- a CSV without the columns, or a row with a missing, non-numeric or non-finite value, a
  ``frame`` out of step, a width or height not above 0, or a box outside the frame (more than
  ``EDGE_SLACK_PX`` beyond an edge: label the part in view);
- a video that will not open, or that has fewer frames than its CSV has rows.

The check decodes each video once (``cv2.VideoCapture.grab``; about a second for a 400-frame
640x480 clip). ``evaluate.chosen_clips`` stays the bare listing (no decode).
"""
from __future__ import annotations

import csv
import math
import sys
from pathlib import Path
from typing import Any

from sensekit.errors import ConfigError, SourceError
from sensekit.evaluation.vision.evaluate import TrackClip, chosen_clips, load_clip, tracker_settings

__all__ = ["EDGE_SLACK_PX", "COLUMNS", "check_clip", "checked_clips"]

#: how far past an edge of the frame a box may reach (OTB's 1-based boxes, rounding)
EDGE_SLACK_PX = 1.0
COLUMNS = ("frame", "x", "y", "w", "h")


def _video_size_and_frames(video: Path, need: int) -> tuple[int, int, int]:
    """(width, height, frames decoded, counting no further than ``need``) of ``video``."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    try:
        ok, first = cap.read() if cap.isOpened() else (False, None)
        if not ok or first is None:
            raise SourceError(f"{video}: the video will not open (not a video OpenCV can decode)")
        n = 1
        while n < need and cap.grab():
            n += 1
    finally:
        cap.release()
    return int(first.shape[1]), int(first.shape[0]), n


def _check_row(gt: Path, line: int, cells: list[str], frame_no: int, size: tuple[int, int]) -> None:
    """One data row's ``frame,x,y,w,h`` texts (``SourceError`` naming ``gt`` and ``line``)."""
    try:
        frame, x, y, w, h = (float(c) for c in cells)
    except ValueError:
        raise SourceError(f"{gt} line {line}: {','.join(cells)!r} is not five numbers frame,x,y,w,h") from None
    if not all(math.isfinite(v) for v in (frame, x, y, w, h)):
        raise SourceError(f"{gt} line {line}: {','.join(cells)!r} is not five finite numbers")
    if frame != frame_no:
        raise SourceError(f"{gt} line {line}: frame {cells[0]}, expected {frame_no} "
                          "(one row per frame, counting from 0)")
    if w <= 0 or h <= 0:
        raise SourceError(f"{gt} line {line} (frame {frame_no}): box {w:g}x{h:g}, width and height must be above 0")
    W, H = size
    s = EDGE_SLACK_PX
    if x < -s or y < -s or x + w > W + s or y + h > H + s:
        raise SourceError(f"{gt} line {line} (frame {frame_no}): box x={x:g} y={y:g} w={w:g} h={h:g} "
                          f"lies outside the {W}x{H} frame (label the part in view)")


def _check_rows(gt: Path, size: tuple[int, int]) -> int:
    """The number of rows of ``gt``, each checked (``SourceError`` naming the line)."""
    with gt.open(encoding="utf-8-sig", newline="") as fh:        # as load_clip: a BOM, ", " separators
        reader = csv.reader(fh, skipinitialspace=True)
        header = [c.strip() for c in next(reader, [])]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise SourceError(f"{gt} line 1: the header needs columns {','.join(COLUMNS)}; "
                              f"missing {','.join(missing)} (got {','.join(header) or 'nothing'})")
        at = [header.index(c) for c in COLUMNS]
        rows = 0
        for row in reader:
            if not any(c.strip() for c in row):
                continue                                            # a blank line
            if len(row) < len(header):
                raise SourceError(f"{gt} line {reader.line_num}: {len(row)} values, the header has {len(header)}")
            _check_row(gt, reader.line_num, [row[i].strip() for i in at], rows, size)
            rows += 1
    if rows == 0:
        raise SourceError(f"{gt}: no rows after the header")
    return rows


def check_clip(folder: Path, name: str) -> TrackClip:
    """``folder``'s clip ``name`` loaded (``load_clip``) after checking its video and every row
    of its CSV (see the module docstring); ``SourceError`` with one line naming the problem."""
    folder = Path(folder)
    video, gt = folder / f"{name}.mp4", folder / f"{name}_gt.csv"
    if not gt.is_file():
        raise SourceError(f"{video}: no ground truth {gt.name} beside it (frame,x,y,w,h, one row per frame)")
    if not video.is_file():
        raise SourceError(f"{gt}: no video {video.name} beside it")
    W, H, _ = _video_size_and_frames(video, 1)
    rows = _check_rows(gt, (W, H))
    _W, _H, frames = _video_size_and_frames(video, rows)
    if frames < rows:
        raise SourceError(f"{video}: {frames} frames, fewer than the {rows} rows of {gt.name}")
    return load_clip(folder, name)


def checked_clips(folder: Path, only: str | None = None) -> list[str]:
    """The clips to run (``chosen_clips``: every clip of ``folder``, or those ``only`` names),
    each checked by ``check_clip``; without ``only`` a video or CSV without its partner is an
    error too, and so is a folder with no clip."""
    folder = Path(folder)
    names = chosen_clips(folder, only)
    if not only:
        videos = {p.name[:-len(".mp4")] for p in folder.glob("*.mp4")}
        truths = {p.name[:-len("_gt.csv")] for p in folder.glob("*_gt.csv")}
        names = sorted(videos | truths)
        if not names:
            raise SourceError(f"no clips in {folder}: it needs NAME.mp4 with NAME_gt.csv (frame,x,y,w,h) beside it")
    for name in names:
        check_clip(folder, name)
    return names


def clips_to_run(folder: Path, only: str | None = None) -> list[str] | None:
    """``checked_clips``, or None once its refusal (the ``SourceError``'s one line) is printed to stderr:
    every clip benchmark then returns ``REFUSED`` from ``main``, so each refuses a folder or a clip
    name it cannot use with the same line and exit status."""
    try:
        return checked_clips(folder, only)
    except SourceError as e:
        print(e, file=sys.stderr)
        return None


def clips_and_tracker(args: Any) -> tuple[list[str], dict[str, Any]] | None:
    """A tracking benchmark's ``--clips``/``--only`` and ``--tracker KEY=VALUE`` options (``args``:
    the parsed namespace) checked: (clip names, tracker settings), or None once the one-line refusal
    is printed to stderr (``main`` then returns ``REFUSED``)."""
    if (names := clips_to_run(args.clips, args.only)) is None:
        return None
    try:
        return names, tracker_settings(args.tracker)
    except (SourceError, ValueError, ConfigError) as e:
        print(e, file=sys.stderr)
        return None
