"""Give a recording made before checksums existed its checksum files, without touching its data.

``add_checksums(folder)`` decodes every frame of a complete recording (``ReplaySource``, which
checks timestamps and segments as replay does) and reads its ``audio.wav`` samples as stored,
then writes ``video_crc.csv``, ``video_ts_crc.csv`` (one CRC-32 per row of ``video_ts.csv``,
its text as stored) and ``audio_crc.csv`` with the recorder's own writers (``ChecksumLog``,
``PcmChecksums``; chunks of the recorded block size) and names them in ``meta.json``
(``video.checksums``, ``video.timestamps_checksums``, ``audio.checksums``,
``audio.checksum_block``), written atomically last. The video, the samples and the
timestamps are not rewritten, so replay gives the same frames and samples; ``inspect`` then
verifies them. The bundled demo recording got its
checksums this way::

    python -m sensekit.capture.backfill_checksums recordings/demo.skrec

Errors: ``RecordingError`` for an incomplete recording or one that has checksums already.
Cost: one decode of the video (~0.3 s for the demo's 300 frames).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from sensekit.capture.checksums import (AUDIO_CRC_FILE, AUDIO_CRC_HEADER, TIMESTAMPS_CRC_FILE,
                                        TIMESTAMPS_CRC_HEADER, VIDEO_CRC_FILE, VIDEO_CRC_HEADER,
                                        ChecksumLog, PcmChecksums, crc32_of)
from sensekit.capture.recording_meta import read_meta, write_json_atomic
from sensekit.errors import RecordingError

__all__ = ["add_checksums"]


def add_checksums(folder: Path) -> tuple[int, int]:
    """Write the checksum files of the recording ``folder``; returns (frames, audio chunks)."""
    import soundfile as sf

    from sensekit.capture.base import VideoFrame
    from sensekit.capture.replay import ReplaySource

    folder = Path(folder)
    checked = read_meta(folder)                        # validated; the file is edited as it is
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    if not checked.get("complete"):
        raise RecordingError(f"'{folder.name}' is not complete: only a finished recording gets checksums")
    video, audio = meta.get("video"), meta.get("audio")
    if any(t and (t.get("checksums") or t.get("timestamps_checksums"))
           for t in (checked.get("video"), checked.get("audio"))):
        raise RecordingError(f"'{folder.name}' has checksums already")
    frames = chunks = 0
    if video:
        log = ChecksumLog(folder / VIDEO_CRC_FILE, VIDEO_CRC_HEADER)
        try:
            with ReplaySource(folder) as src:
                for item in src:
                    if isinstance(item, VideoFrame):
                        log.add(crc32_of(item.image))
        finally:
            log.close()
        frames = log.rows
        if frames != meta["frames"]:
            raise RecordingError(f"'{folder.name}' decoded {frames} frames, meta.json says {meta['frames']}")
        video["checksums"] = VIDEO_CRC_FILE
        rows = (folder / video["timestamps"]).read_text(encoding="ascii").splitlines()[1:]
        tlog = ChecksumLog(folder / TIMESTAMPS_CRC_FILE, TIMESTAMPS_CRC_HEADER)
        try:
            for row in rows:
                tlog.add(crc32_of(row.encode("ascii")))
        finally:
            tlog.close()
        video["timestamps_checksums"] = TIMESTAMPS_CRC_FILE
    if audio:
        samples, _ = sf.read(folder / audio["file"], dtype="int16", always_2d=True)
        block = int(audio["block_size"])
        alog = ChecksumLog(folder / AUDIO_CRC_FILE, AUDIO_CRC_HEADER)
        try:
            pcm = PcmChecksums(alog, block, samples.shape[1])
            pcm.add(np.ascontiguousarray(samples))
            pcm.finish()
        finally:
            alog.close()
        chunks = alog.rows
        audio["checksums"] = AUDIO_CRC_FILE
        audio["checksum_block"] = block
    write_json_atomic(folder / "meta.json", meta)
    return frames, chunks


if __name__ == "__main__":
    for name in sys.argv[1:]:
        n_frames, n_chunks = add_checksums(Path(name))
        print(f"{name}: {n_frames} frame checksums, {n_chunks} audio chunk checksums")
