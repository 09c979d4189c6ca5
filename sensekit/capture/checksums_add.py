"""Give a recording made before checksums the checksum files it lacks, without touching its data.

``add_checksums(folder)`` (``sensekit inspect REC --add-checksums``) writes whichever of
``video_crc.csv``, ``video_ts_crc.csv`` and ``audio_crc.csv`` ``meta.json`` does not name, with the
recorder's own writers (``ChecksumLog``, ``PcmChecksums``), the way the recorder would have: every
frame as replay decodes it, every timestamp row and every ``audio.checksum_block`` samples as
stored. No frame, sample or timestamp is rewritten; ``meta.json`` gains their names (and
``audio.checksum_block``) and is replaced atomically last. The bundled demo got its checksums so.

It refuses (``RecordingError``, nothing written) an incomplete recording, a damaged one (every
frame is decoded and the checksums it already has are verified first, by ``check_recording``:
fresh checksums must not bless damage), and a checksum file lying in the folder that ``meta.json``
does not name. A recording with every checksum file gets nothing (``{}``).

Cost: ``check_recording``'s decode, plus one replay decode when the frame checksums are missing
(~0.5 s together for the demo's 300 frames).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sensekit.capture.base import VideoFrame
from sensekit.capture.checksums import (AUDIO_CRC_FILE, AUDIO_CRC_HEADER, CHECKSUM_FILES, TIMESTAMPS_CRC_FILE,
                                        TIMESTAMPS_CRC_HEADER, VIDEO_CRC_FILE, VIDEO_CRC_HEADER, ChecksumLog,
                                        PcmChecksums, checksums_cap, crc32_of, missing_checksums, recorded_lines)
from sensekit.capture.recording_check import check_recording
from sensekit.capture.recording_meta import write_json_atomic
from sensekit.capture.replay import ReplaySource
from sensekit.errors import RecordingError

__all__ = ["add_checksums"]


def add_checksums(folder: Path) -> dict[str, int]:
    """Write the checksum files the recording ``folder`` lacks; returns {file name: rows written}
    (empty when it has them all). See the module's docstring for what is refused."""
    folder = Path(folder)
    report = check_recording(folder)        # every frame decoded, present checksums verified
    missing = missing_checksums(report.meta)
    refusal = _refusal(folder, report.complete, report.problems, missing)
    if refusal:
        raise RecordingError(refusal)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))   # edited as it is
    written: dict[str, int] = {}
    try:
        for track, key, file in CHECKSUM_FILES:
            if file in missing:
                written[file] = _write_checksums(folder, report.meta, file)
                meta[track][key] = file
        if AUDIO_CRC_FILE in written:
            meta["audio"]["checksum_block"] = report.meta["audio"]["block_size"]
        if written:
            write_json_atomic(folder / "meta.json", meta)
    except BaseException:
        for file in written:
            (folder / file).unlink(missing_ok=True)
        raise
    return written


def _refusal(folder: Path, complete: bool, problems: list[str], missing: list[str]) -> str | None:
    """Why checksums may not be added to ``folder`` (``None``: they may)."""
    name = folder.name
    if not complete:
        return (f"'{name}' is incomplete: only a finished recording gets checksums "
                "(it replays what it saved, unverified); nothing written")
    if problems:
        more = f" (and {len(problems) - 1} more: see `sensekit inspect`)" if len(problems) > 1 else ""
        return f"'{name}' is damaged, so no checksums are written: {problems[0]}{more}"
    for file in missing:
        if (folder / file).exists():
            return (f"'{name}' holds '{file}' but meta.json does not name it: move that file away "
                    "first; nothing written")
    return None


def _write_checksums(folder: Path, meta: dict[str, Any], file: str) -> int:
    """One checksum file of ``folder`` (``meta`` as ``read_meta`` gives it); its rows."""
    header = {VIDEO_CRC_FILE: VIDEO_CRC_HEADER, TIMESTAMPS_CRC_FILE: TIMESTAMPS_CRC_HEADER,
              AUDIO_CRC_FILE: AUDIO_CRC_HEADER}[file]
    crcs: list[int] = []
    if file == VIDEO_CRC_FILE:      # decoded before the file exists: replay refuses a checksum file meta.json
        with ReplaySource(folder) as src:                       # does not name (recording_meta)
            crcs = [crc32_of(item.image) for item in src if isinstance(item, VideoFrame)]
    log = ChecksumLog(folder / file, header)
    try:
        if file == VIDEO_CRC_FILE:
            for crc in crcs:
                log.add(crc)
        elif file == TIMESTAMPS_CRC_FILE:
            lines = recorded_lines(folder / meta["video"]["timestamps"], complete=True,
                                   max_bytes=checksums_cap(None), missing="the timestamps file is missing")
            for line in lines[1:]:
                log.add(crc32_of(line))
        else:
            import soundfile as sf
            audio = meta["audio"]
            with sf.SoundFile(str(folder / audio["file"])) as wav:
                pcm = PcmChecksums(log, int(audio["block_size"]), wav.channels)
                for chunk in wav.blocks(blocksize=1 << 16, dtype="int16", always_2d=True):
                    pcm.add(chunk)
                pcm.finish()
    finally:
        log.close()
    return log.rows
