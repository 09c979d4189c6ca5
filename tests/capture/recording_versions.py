"""Test helper: turn a recording (format version 2) into the version 1 layout the bundled demo uses.

``to_version_1(rec)`` decodes every frame, writes them into one lossless FFV1
``video.mkv`` with ``cv2.VideoWriter`` (what version 1 recorders did), removes
the segments and the playlist and rewrites ``meta.json`` as version 1. Audio
and timestamps are untouched. Used to keep testing that version 1 recordings
still replay and inspect correctly.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2

from sensekit.capture.base import VideoFrame
from sensekit.capture.replay import ReplaySource


def to_version_1(rec: Path) -> Path:
    meta = json.loads((rec / "meta.json").read_text())
    v = meta["video"]
    if v is not None:
        frames = [i.image for i in ReplaySource(rec) if isinstance(i, VideoFrame)]
        writer = cv2.VideoWriter(str(rec / "video.mkv"), cv2.CAP_FFMPEG, cv2.VideoWriter.fourcc(*"FFV1"),
                                 float(v["fps"]), (v["width"], v["height"]))
        assert writer.isOpened()
        for image in frames:
            writer.write(image)
        writer.release()
        shutil.rmtree(rec / v.pop("segments"))
        (rec / v.pop("playlist")).unlink()
        v.pop("fps_from", None)
        v.pop("fps_measured", None)
        v["file"] = "video.mkv"
    meta["version"] = 1
    (rec / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return rec
