"""``VideoRecorder``: writes what the window shows to a video file, frame by frame.

The codec follows the file extension: ``.avi`` -> MJPG (small, plays anywhere),
``.mkv`` -> FFV1 (lossless), ``.mp4`` -> mp4v. The writer opens on the first
frame (so it knows the size) and raises ``ConfigError`` naming the path when
OpenCV cannot open it (unknown extension, missing codec, unwritable folder); ``close`` checks
that the container holds every frame written (a full disk: ``OSError`` naming the file).
Cost: one surface copy + encode per frame, about 1-3 ms at 640x480 for MJPG.
"""
from __future__ import annotations

import errno
from pathlib import Path

import cv2
import pygame

from sensekit.app.convert import surface_to_array
from sensekit.errors import ConfigError

FOURCC = {".avi": "MJPG", ".mkv": "FFV1", ".mp4": "mp4v"}


class VideoRecorder:
    def __init__(self, path: str | Path, fps: float) -> None:
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if suffix not in FOURCC:
            raise ConfigError(f"video file {str(self.path)!r} must end in one of "
                              f"{', '.join(sorted(FOURCC))}, got {suffix or 'no extension'!r}")
        self.fourcc = FOURCC[suffix]
        self.fps = float(fps)
        self.frames = 0
        self._writer: cv2.VideoWriter | None = None

    def write(self, surface: pygame.Surface) -> None:
        image = surface_to_array(surface)
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            h, w = image.shape[:2]
            writer = cv2.VideoWriter(str(self.path), cv2.VideoWriter.fourcc(*self.fourcc),
                                     self.fps, (w, h))
            if not writer.isOpened():
                raise ConfigError(f"cannot write video {str(self.path)!r} with codec {self.fourcc}")
            self._writer = writer
        self._writer.write(image)
        self.frames += 1

    def close(self) -> None:
        """Finish the file and check it: OpenCV's writer does not report a failed write, so a
        full disk left a video of a few frames and a run that said nothing. The container must
        state the frames written (within 1 %: Matroska's count is its duration times the rate; a
        file cut short states nothing sensible, or cannot be opened); else ``OSError`` naming it."""
        if self._writer is not None:
            self._writer.release()
            self._writer = None
            cap = cv2.VideoCapture(str(self.path))
            try:
                claimed = cap.get(cv2.CAP_PROP_FRAME_COUNT) if cap.isOpened() else -1.0
            finally:
                cap.release()
            if not abs(claimed - self.frames) <= max(1.0, self.frames / 100):   # (a duration x fps estimate)
                raise OSError(errno.EIO, f"the video {str(self.path)!r} does not hold the {self.frames} frames "
                                         "written to it (is the disk full?)")
