"""``sensekit snapshot SOURCE --frame N --out stages.png``: every vision stage of one frame.

    sensekit snapshot SOURCE [--frame N] [--out PATH] [--mirror] [--blur N] [--levels N]
                             [--track-color X,Y|#RRGGBB] [--tolerance H,S,V]
                             [--motion-method difference|background] [--zones ...]

Plays SOURCE (any source spec, or a video path) from the start to frame N (default 30), so
the tracker and the motion detector have the history they would have live, then writes a
labelled 3x3 montage: input (mirrored if asked), box blur, Gaussian blur, palette, the
book's threshold on the frame difference, the colour mask (tracker), the motion mask,
horizontal edges, and any-direction edges. The tracked box (green) and the motion box (red)
are drawn on the input panel; the tracker starts on frame 0 (a click X,Y, or a colour).

Cost: decoding N frames plus ~10 ms. Fails (one line, status 2) on an unreadable source,
a source with fewer than N+1 frames, or a bad option value.
"""
from __future__ import annotations

import argparse
from typing import Iterable, Iterator

import cv2
import numpy as np

from sensekit.cli.paths import OutputPath
from sensekit.errors import ConfigError, SourceError
from sensekit.validate import check_frame

DEFAULT_FRAME = 30


def _video_frames(spec: str) -> Iterator[np.ndarray]:
    """BGR frames of a source spec (via ``open_source``), or of a video file path."""
    try:
        from sensekit.capture.spec import open_source
    except ImportError:                                 # capture layer not installed
        open_source = None
    if open_source is not None:
        from sensekit.capture.base import VideoFrame
        source = open_source(spec)
        with source:
            if not source.has_video:
                raise SourceError(f"source {spec!r} has no video (a snapshot shows the vision stages)")
            for item in source:
                if isinstance(item, VideoFrame):
                    yield item.image
        return
    cap = cv2.VideoCapture(str(spec))
    if not cap.isOpened():
        raise SourceError(f"cannot open video {spec!r}")
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                return
            yield frame
    finally:
        cap.release()


def _label(panel: np.ndarray, text: str) -> np.ndarray:
    bar = np.full((18, panel.shape[1], 3), 32, np.uint8)
    cv2.putText(bar, text, (4, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (255, 255, 255), 1, cv2.LINE_AA)
    return np.vstack([bar, panel])


def _bgr(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if img.ndim == 2 else img


def _draw_box(img: np.ndarray, box: tuple[int, int, int, int], color: tuple[int, int, int]) -> None:
    x, y, w, h = box
    if w > 0 and h > 0:
        cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), color, 2)


def make_montage(frames: Iterable[np.ndarray], *, frame_index: int = DEFAULT_FRAME,
                 mirror: bool = False, blur_px: int = 10, levels: int = 4,
                 track: str | None = None, tolerance: str = "12,80,80",
                 motion_method: str = "difference", zones: str | None = None,
                 columns: int = 3) -> np.ndarray:
    """Play ``frames`` up to ``frame_index`` and return the labelled montage (BGR uint8)."""
    from sensekit.vision import stages
    from sensekit.vision.color_tracker import ColorTracker, parse_tolerance
    from sensekit.vision.motion import MotionDetector, parse_zones
    from sensekit.vision.options import parse_track_target

    if isinstance(frame_index, bool) or not isinstance(frame_index, int) or frame_index < 0:
        raise ConfigError(f"--frame must be a frame number >= 0, got {frame_index!r}")
    stages.palette_lut(levels)
    if blur_px < 1:
        raise ConfigError(f"blur size must be >= 1 pixel, got {blur_px!r}")
    tracker: ColorTracker | None = None
    target = parse_track_target(track) if track else None
    tol = parse_tolerance(tolerance)
    motion = MotionDetector(method=motion_method,  # type: ignore[arg-type]
                            zones=parse_zones(zones) if zones else None)
    prev_blur: np.ndarray | None = None
    last: dict[str, np.ndarray] = {}
    n = -1
    for n, raw in enumerate(frames):
        check_frame(raw, "frame")
        m = stages.mirror(raw) if mirror else raw
        b = stages.blur(m, size_px=blur_px)
        if n == 0 and target is not None:
            if isinstance(target, tuple):
                tracker = ColorTracker(method="model", tolerance=tol)
                tracker.pick(m, *target)
            else:
                tracker = ColorTracker(target, tolerance=tol, blur_px=blur_px)
        track_result = tracker.update(m, n / 30.0) if tracker is not None else None
        motion_result = motion.update(b)
        if n == frame_index:
            last = {"m": m, "b": b}
            q = stages.palette_map(b, levels=levels)
            if prev_blur is None:
                prev_blur = b
            diff = cv2.absdiff(b, prev_blur)
            book = stages.threshold(diff, op="<", value=0x330000, color=0x000000, mask=0xFF0000)
            panels: list[tuple[str, np.ndarray]] = []
            shown = m.copy()
            if track_result is not None and track_result.found:
                _draw_box(shown, track_result.box, (0, 255, 0))
                cv2.drawMarker(shown, (int(track_result.cx), int(track_result.cy)), (0, 255, 0),
                               cv2.MARKER_CROSS, 12, 2)
            _draw_box(shown, motion_result.box, (0, 0, 255))
            panels.append((f"input #{n}{' mirrored' if mirror else ''} (track green, motion red)", shown))
            panels.append((f"box blur {blur_px}", b))
            panels.append((f"gaussian blur {blur_px}", stages.blur(m, size_px=blur_px, method="gaussian")))
            panels.append((f"palette {levels} levels", q))
            panels.append(("difference, red < 0x33 -> 0", book))
            if tracker is not None and tracker.last_mask is not None:
                cm = tracker.last_mask
                if cm.shape != m.shape[:2]:           # model: likely pixels in its search window
                    full = np.zeros(m.shape[:2], np.uint8)
                    ox, oy = tracker.last_mask_origin
                    full[oy:oy + cm.shape[0], ox:ox + cm.shape[1]] = cm
                    cm = full
                colour_panel = _bgr(np.where(cm > 0, 255, 0).astype(np.uint8))
                _draw_box(colour_panel, track_result.box if track_result else (0, 0, 0, 0), (0, 255, 0))
                panels.append((f"colour ({tracker.method})", colour_panel))
            else:
                panels.append(("colour (no --track-color)", np.zeros_like(m)))
            mm = _bgr(motion_result.mask)
            _draw_box(mm, motion_result.box, (0, 0, 255))
            panels.append((f"motion {motion_method} amt {motion_result.amount:.3f}", mm))
            panels.append(("edges horizontal [0,4,-4]", stages.edges(m)))
            panels.append(("edges any (Sobel)", _bgr(stages.edges(m, direction="any"))))
            break
        prev_blur = b
    if not last:
        raise SourceError(f"the source has only {n + 1} frame(s); --frame {frame_index} is past the end")
    labelled = [_label(p, t) for t, p in panels]
    rows = []
    for i in range(0, len(labelled), columns):
        row = labelled[i:i + columns]
        while len(row) < columns:
            row.append(np.zeros_like(labelled[0]))
        rows.append(np.hstack(row))
    return np.vstack(rows)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "snapshot", help="save a labelled montage of every vision stage for one frame",
        description="Save a labelled montage of every vision stage of one frame, for tuning.")
    p.add_argument("source", metavar="SOURCE", help="source spec or video path")
    p.add_argument("--frame", type=int, default=DEFAULT_FRAME, metavar="N",
                   help="frame number (default %(default)s)")
    p.add_argument("--out", type=OutputPath(".png", ".jpg", ".jpeg"), default="stages.png",
                   metavar="PATH", help="picture to write, .png/.jpg (default %(default)s)")
    p.add_argument("--mirror", action="store_true")
    p.add_argument("--blur", type=int, default=10, metavar="N", help="box blur (default %(default)s)")
    p.add_argument("--levels", type=int, default=4, metavar="N", help="palette levels (default %(default)s)")
    p.add_argument("--track-color", metavar="X,Y|#RRGGBB", help="what to track, picked on frame 0")
    p.add_argument("--tolerance", default="12,80,80", metavar="H[,S,V]")
    p.add_argument("--motion-method", choices=("difference", "background"), default="difference")
    p.add_argument("--zones", metavar="NAME=X,Y,W,H;...")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    montage = make_montage(_video_frames(args.source), frame_index=args.frame, mirror=args.mirror,
                           blur_px=args.blur, levels=args.levels, track=args.track_color,
                           tolerance=args.tolerance, motion_method=args.motion_method,
                           zones=args.zones)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(args.out), montage):
        raise ConfigError(f"cannot write {str(args.out)!r} (is the extension .png?)")
    print(f"wrote {args.out} ({montage.shape[1]}x{montage.shape[0]}, frame {args.frame})")
    return 0
