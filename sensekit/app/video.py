"""``VideoRecorder``: writes what the window shows to a video file, frame by frame.

The codec follows the file extension: ``.avi`` -> MJPG (small, plays anywhere),
``.mkv`` -> FFV1 (lossless), ``.mp4`` -> mp4v. The writer opens on the first
frame (so it knows the size) and raises ``ConfigError`` naming the path when
OpenCV cannot open it (unknown extension, missing codec, unwritable folder). Frames go to a
hidden file beside it (``.NAME.partial.EXT``), which ``close`` checks - the container must hold
every frame written - and renames over ``path``: a full disk is one ``OSError`` naming the
file, the partial file is removed and a video already at ``path`` is left as it was (it was
overwritten from the first frame). A symlink is followed: its target is replaced.
Cost: one surface copy + encode per frame, about 1-3 ms at 640x480 for MJPG.
"""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

import cv2
import pygame

from sensekit.app.convert import surface_to_array
from sensekit.capture.devices import quiet_opencv
from sensekit.errors import ConfigError

FOURCC = {".avi": "MJPG", ".mkv": "FFV1", ".mp4": "mp4v"}


class VideoRecorder:
    def __init__(self, path: str | Path, fps: float) -> None:
        self.path = Path(path)
        target = self.path.resolve() if self.path.is_symlink() else self.path
        self._partial = target.with_name(f".{target.stem}.partial{target.suffix}")
        self._target = target
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
            writer = cv2.VideoWriter(str(self._partial), cv2.VideoWriter.fourcc(*self.fourcc),
                                     self.fps, (w, h))
            if not writer.isOpened():
                raise ConfigError(f"cannot write video {str(self.path)!r} with codec {self.fourcc}")
            self._writer = writer
        with quiet_opencv():     # a full disk: a warning per frame for as long as the run lasts; close() tells
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
            with quiet_opencv():                 # (FFmpeg's "File ended prematurely": said below in one line)
                cap = cv2.VideoCapture(str(self._partial))
            try:
                claimed = cap.get(cv2.CAP_PROP_FRAME_COUNT) if cap.isOpened() else -1.0
            finally:
                cap.release()
            if not abs(claimed - self.frames) <= max(1.0, self.frames / 100):   # (a duration x fps estimate)
                with contextlib.suppress(OSError):
                    os.unlink(self._partial)             # the space it holds goes back to the disk
                kept = "; the video that was there is kept" if self._target.is_file() else ""
                raise OSError(errno.EIO, f"the video {str(self.path)!r} does not hold the {self.frames} frames "
                                         f"written to it (is the disk full?){kept}")
            os.replace(self._partial, self._target)
