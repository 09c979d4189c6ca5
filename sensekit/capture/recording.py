"""The recording format, re-exported from the modules that implement it (compatibility).

``Recorder`` lives in ``sensekit.capture.recorder``, ``record_source`` in ``sensekit.capture.record_loop``,
``ReplaySource`` in ``sensekit.capture.replay``, ``meta.json`` and the
timestamps in ``sensekit.capture.recording_meta``, the WAV in
``sensekit.capture.wav``, the video segments in
``sensekit.capture.video_segments`` and the damage report ``inspect`` prints
in ``sensekit.capture.recording_check``. The format itself is described in
``docs/RECORDING_FORMAT.md``.
"""
from __future__ import annotations

from sensekit.capture.record_loop import record_source
from sensekit.capture.recorder import FLUSH_INTERVAL_S, MAX_PAD_S, Recorder
from sensekit.capture.recording_meta import (AUDIO_FILE, DEFAULT_BLOCK_SIZE, FORMAT, META_FILE,
                                             PLAYLIST_FILE, READABLE_VERSIONS, SEGMENTS_DIR,
                                             TIMESTAMPS_FILE, TIMESTAMPS_HEADER, VERSION,
                                             VIDEO_FILE, read_meta, read_timestamps,
                                             write_json_atomic)
from sensekit.capture.replay import ReplaySource
from sensekit.capture.mkv import make_mkv_reproducible
from sensekit.capture.wav import (WavInfo, WavWriter, float_to_int16, int16_to_float,
                                  read_wav_info)

__all__ = [
    "AUDIO_FILE", "DEFAULT_BLOCK_SIZE", "FLUSH_INTERVAL_S", "FORMAT", "MAX_PAD_S", "META_FILE",
    "PLAYLIST_FILE", "READABLE_VERSIONS", "SEGMENTS_DIR", "TIMESTAMPS_FILE", "TIMESTAMPS_HEADER",
    "VERSION", "VIDEO_FILE", "Recorder", "ReplaySource", "WavInfo", "WavWriter", "float_to_int16",
    "int16_to_float", "make_mkv_reproducible", "read_meta", "read_timestamps", "read_wav_info",
    "record_source", "write_json_atomic",
]
