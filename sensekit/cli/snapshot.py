"""``sensekit snapshot SOURCE --frame N --out stages.png``: every vision stage of one frame.

    sensekit snapshot SOURCE [--frame N] [--out PATH] [--mirror] [--blur N] [--levels N]
                             [--track-color X,Y|#RRGGBB] [--tolerance H,S,V]
                             [--motion-method difference|background] [--zones ...]
                             [--set KEY=VALUE ...] [--preset NAME] [--profile FILE]

Plays SOURCE (any source spec, or a video path) from the start to frame N (default 30), so
the tracker and the motion detector have the history they would have live, then writes a
labelled 3x3 montage: input, box blur, Gaussian blur, palette, the
book's threshold on the frame difference, the colour mask (tracker), the motion mask,
horizontal edges, and any-direction edges. The tracked box (green) and the motion box (red)
are drawn on the input panel, and its label says which are there ("nothing tracked" without
``--track-color``, "colour not found", "no motion"); the tracker starts on frame 0 (a click X,Y, or a colour).
Every stage uses the settings table (``vision``, ``tracker`` and ``motion``): the table's
defaults, then ``--preset``, ``--profile``, the options and ``--set``, as ``sensekit events``
does; the book's threshold panel uses ``motion.threshold`` (the book's 0x33 when it is none).
The docs' montage (docs/vision.md) is ``--blur 10 --levels 4`` (the book's chain).

Mirroring follows the apps (one rule for what a person looks at: an app's window, the panel
on an app, this montage): the picture is mirrored before any stage sees it, so ``--track-color
X,Y`` and the boxes are in the mirrored picture's pixels, as in ``sensekit run``. ``--set
vision.mirror=false`` shows the frame as recorded, the way ``sensekit events`` reads it unless
``--mirror``. With blur off (``--blur 1``, the table's default) the two blur panels show what
the book's 10-pixel blur would do, and say so, rather than the input again.

Cost: decoding N frames plus ~10 ms. Fails (one line, status 2) on an unreadable source,
a source with fewer than N+1 frames, or a bad option value.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping

import cv2
import numpy as np

from sensekit.cli import Subparsers
from sensekit.cli.paths import OutputPath
from sensekit.cli.tuning import add_setting_flags, add_tuning_arguments, chosen_values, section_values
from sensekit.errors import ConfigError, SourceError
from sensekit.validate import check_frame
from sensekit.vision.motion import HALVES_NOTE

if TYPE_CHECKING:
    from sensekit.capture.base import Source

DEFAULT_FRAME = 30
#: the montage is mirrored like the apps' pictures (``App.mirror``); ``--set vision.mirror=false``
MIRROR = True
#: the blur the two blur panels show when the run's blur is off (the book's ``BlurFilter(10, 10)``)
BOOK_BLUR_PX = 10
#: height of each panel's label bar, pixels
LABEL_H = 18


def _video_frames(spec: str, *, until_frame: int | None = None, quiet: bool = True) -> Iterator[np.ndarray]:
    """BGR frames of a source spec (via ``open_source``), or of a video file path; unless
    ``quiet``, a progress bar (on a terminal) up to frame ``until_frame``."""
    open_source: Callable[..., Source] | None
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
            from sensekit.cli.progress import ClipProgress, clip_length_s, on_a_terminal

            length = clip_length_s(source)
            fps = float(getattr(source, "fps", 0) or 0)
            if until_frame is not None and fps > 0:
                length = min(length or np.inf, (until_frame + 1) / fps)
            with ClipProgress(length, "snapshot", enabled=not quiet and on_a_terminal()) as progress:
                for item in source:
                    progress(item)
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
    bar = np.full((LABEL_H, panel.shape[1], 3), 32, np.uint8)
    cv2.putText(bar, text, (4, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (255, 255, 255), 1, cv2.LINE_AA)
    return np.vstack([bar, panel])


def _bgr(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if img.ndim == 2 else img


def _draw_box(img: np.ndarray, box: tuple[int, int, int, int], color: tuple[int, int, int]) -> None:
    x, y, w, h = box
    if w > 0 and h > 0:
        cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), color, 2)


def montage_settings(values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``vision``, ``tracker`` and ``motion`` settings a montage uses: the table's defaults
    updated with ``values`` (keys ``section.name``)."""
    from sensekit.settings.registry import load_table

    table = load_table(apps=False)
    out = {s.key: s.default for section in ("vision", "tracker", "motion") for s in table[section].items}
    out["vision.mirror"] = MIRROR
    out.update(values or {})
    return out


def _section(values: Mapping[str, Any], section: str, *drop: str) -> dict[str, Any]:
    return {k: v for k, v in section_values(values, section).items() if k not in drop}


def make_montage(frames: Iterable[np.ndarray], *, frame_index: int = DEFAULT_FRAME,
                 settings: Mapping[str, Any] | None = None, track: str | None = None,
                 zones: str | None = None, columns: int = 3) -> np.ndarray:
    """Play ``frames`` up to ``frame_index`` and return the labelled montage (BGR uint8);
    ``settings`` as ``montage_settings`` takes them."""
    from sensekit.vision import stages
    from sensekit.vision.color_tracker import ColorTracker
    from sensekit.vision.motion import MotionDetector, parse_zones
    from sensekit.vision.targets import parse_track_target

    if isinstance(frame_index, bool) or not isinstance(frame_index, int) or frame_index < 0:
        raise ConfigError(f"--frame must be a frame number >= 0, got {frame_index!r}")
    v = montage_settings(settings)
    mirror, blur_px, levels = v["vision.mirror"], v["vision.blur_px"], v["vision.levels"]
    # the stage's palette table (vision.levels, vision.palette_spread): the panel and the tracker's picture
    palette = stages.palette_lut(levels, spread=v["vision.palette_spread"]) if levels is not None else None
    book_threshold = _book_threshold(v)
    tracker: ColorTracker | None = None
    target = parse_track_target(track) if track else None
    tracker_values = _section(v, "tracker", "color", "method")
    motion = MotionDetector(zones_px=parse_zones(zones) if zones else None, **_section(v, "motion"))
    prev_blur: np.ndarray | None = None
    n = -1
    for n, raw in enumerate(frames):
        check_frame(raw, "frame")
        m = stages.mirror(raw) if mirror else raw
        b = stages.blur(m, size_px=blur_px)
        q = cv2.LUT(b, palette) if palette is not None else b
        if n == 0 and target is not None:
            tracker = _start_tracker(target, m, q, v, tracker_values, palette)
        track_result = tracker.update(q if tracker.reads_prepared else m, n / 30.0) if tracker is not None else None
        motion_result = motion.update(b)
        if n == frame_index:
            diff = cv2.absdiff(b, b if prev_blur is None else prev_blur)
            book = stages.threshold(diff, op="<", value=book_threshold << 16, color=0x000000, mask=0xFF0000)
            panels = _panels(n, m, b, q, book, v, tracker, track_result, motion_result)
            return _grid([_label(p, t) for t, p in panels], columns)
        prev_blur = b
    raise SourceError(f"the source has only {n + 1} frame(s); --frame {frame_index} is past the end")


def _start_tracker(target: Any, m: np.ndarray, q: np.ndarray, v: Mapping[str, Any], tracker_values: dict[str, Any],
                   palette: np.ndarray | None) -> Any:
    """The tracker of ``--track-color``: a click picks on frame 0 (by default the object under
    it), a colour is tracked as such; hsv and exact read ``q``, the picture blurred and through
    ``palette`` as ``VisionStage`` hands it to them."""
    from sensekit.vision.color_tracker import ColorTracker

    if isinstance(target, tuple):
        tracker = ColorTracker(method=v["tracker.method"] or "model", palette=palette, **tracker_values)
        tracker.pick(q if tracker.reads_prepared else m, *target)
        return tracker
    return ColorTracker(target, method=v["tracker.method"], palette=palette, **tracker_values)


def input_caption(n: int, mirror: bool, tracking: bool, track_result: Any,
                  motion_box: tuple[int, int, int, int]) -> str:
    """The input panel's label: what its boxes are, and only boxes that are drawn."""
    if not tracking:
        track = "nothing tracked"
    elif track_result is not None and track_result.found:
        track = "track green"
    else:
        track = "colour not found"
    motion = "motion red" if motion_box[2] > 0 and motion_box[3] > 0 else "no motion"
    return f"input #{n}{' mirrored' if mirror else ''} ({track}, {motion})"


def _panels(n: int, m: np.ndarray, b: np.ndarray, q: np.ndarray, book: np.ndarray, v: Mapping[str, Any],
            tracker: Any, track_result: Any, motion_result: Any) -> list[tuple[str, np.ndarray]]:
    """Every stage's picture of frame ``n``, with its label."""
    from sensekit.vision import stages

    mirror, blur_px, levels = v["vision.mirror"], v["vision.blur_px"], v["vision.levels"]
    panels: list[tuple[str, np.ndarray]] = []
    shown = m.copy()
    if track_result is not None and track_result.found:
        _draw_box(shown, track_result.box, (0, 255, 0))
        cv2.drawMarker(shown, (int(track_result.cx), int(track_result.cy)), (0, 255, 0),
                       cv2.MARKER_CROSS, 12, 2)
    _draw_box(shown, motion_result.box, (0, 0, 255))
    panels.append((input_caption(n, mirror, tracker is not None, track_result, motion_result.box), shown))
    if blur_px > 1:
        panels.append((f"box blur {blur_px}", b))
        panels.append((f"gaussian blur {blur_px}", stages.blur(m, size_px=blur_px, method="gaussian")))
    else:                                   # 1 is off: show what a blur would do, labelled
        panels.append((f"box blur {BOOK_BLUR_PX} (book; --blur is off)", stages.blur(m, size_px=BOOK_BLUR_PX)))
        panels.append((f"gaussian blur {BOOK_BLUR_PX} (--blur is off)",
                       stages.blur(m, size_px=BOOK_BLUR_PX, method="gaussian")))
    panels.append((f"palette {levels} levels" if levels is not None else "palette off", q))
    book_threshold = _book_threshold(v)
    panels.append((f"difference, red < {book_threshold:#04x} -> 0", book))
    cm = tracker.region_mask(m.shape) if tracker is not None else None
    if tracker is not None and cm is not None:
        colour_panel = _bgr(np.where(cm > 0, 255, 0).astype(np.uint8))
        _draw_box(colour_panel, track_result.box if track_result else (0, 0, 0, 0), (0, 255, 0))
        panels.append((f"colour ({tracker.method_in_use})", colour_panel))
    else:
        panels.append(("colour (no --track-color)", np.zeros_like(m)))
    mm = _bgr(motion_result.mask)
    _draw_box(mm, motion_result.box, (0, 0, 255))
    panels.append((f"motion {v['motion.method']} amt {motion_result.amount:.3f}", mm))
    edge_kw = {"blur_px": v["vision.edge_blur_px"], "threshold_value": v["vision.edge_threshold"]}
    panels.append(("edges horizontal [0,4,-4]", stages.edges(m, **edge_kw)))
    panels.append(("edges any (Sobel)", _bgr(stages.edges(m, direction="any", **edge_kw))))
    return panels


def _book_threshold(v: Mapping[str, Any]) -> int:
    from sensekit.settings.presets import BOOK

    return int(v["motion.threshold"] or BOOK.values["motion.threshold"])


def _grid(labelled: list[np.ndarray], columns: int) -> np.ndarray:
    """The pictures in rows of ``columns`` (the last row padded with black)."""
    rows = []
    for i in range(0, len(labelled), columns):
        row = labelled[i:i + columns]
        while len(row) < columns:
            row.append(np.zeros_like(labelled[0]))
        rows.append(np.hstack(row))
    return np.vstack(rows)


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "snapshot", help="save a labelled montage of every vision stage for one frame",
        description="Save a labelled montage of every vision stage of one frame, for tuning.")
    p.add_argument("source", metavar="SOURCE", help="source spec, video path, or demo (the bundled recording)")
    p.add_argument("--frame", type=int, default=DEFAULT_FRAME, metavar="N",
                   help="frame number (default %(default)s)")
    p.add_argument("--out", type=OutputPath(".png", ".jpg", ".jpeg"), default="stages.png",
                   metavar="PATH", help="picture to write, .png/.jpg (default %(default)s)")
    p.add_argument("--track-color", metavar="X,Y|#RRGGBB", help="what to track, picked on frame 0")
    p.add_argument("--tolerance", metavar="H[,S,V]", help="HSV tolerance for a colour (`tracker.hue_tolerance` ...)")
    p.add_argument("--zones", metavar="NAME=X,Y,W,H;...", help=f"extra motion zones in pixels ({HALVES_NOTE})")
    add_setting_flags(p, ["vision", "tracker", "motion"])
    for action in p._actions:             # the table's default (false) is not the montage's: it mirrors
        if "--mirror" in action.option_strings:
            action.help = ("flip frames left-right first, like the apps' pictures (`vision.mirror`, "
                           "default here: true; --no-mirror shows the frame as recorded, as `sensekit "
                           "events` reads it)")
    add_tuning_arguments(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from sensekit.cli import vision_options

    chosen = chosen_values(args, options=vision_options.option_values(args))
    frames = _video_frames(args.source, until_frame=args.frame, quiet=args.quiet)
    montage = make_montage(frames, frame_index=args.frame, settings=chosen.values,
                           track=args.track_color, zones=args.zones)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(args.out), montage):
        raise ConfigError(f"cannot write {str(args.out)!r} (is the extension .png?)")
    print(f"wrote {Path(args.out).absolute()} ({montage.shape[1]}x{montage.shape[0]}, frame {args.frame})")
    return 0
