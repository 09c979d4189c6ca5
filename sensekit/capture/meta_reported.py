"""The values of ``meta.json`` that replay never reads but ``inspect`` reports, checked before it
reports them: a damaged one is named, never printed as if true.

``meta.json``'s ``start_unix`` (the ``started`` line), ``video.codec`` (the ``video`` line),
``audio_padded_samples`` (the silence fill under ``missing``) and ``duration_s`` (the recorder's
own figure; ``inspect`` shows the duration it measures from the tracks) are notes for people:
``ReplaySource`` does not read them, so ``recording_meta`` accepts whatever they hold and replay is
unaffected by them. ``damaged_values(meta, samples)`` returns ``{key: why}`` for each one of the
wrong type, not finite or out of range, which ``check_recording`` lists in its notes
(``meta.json is damaged: ...``) and ``inspect`` leaves out of its lines:

| key | must be |
|---|---|
| ``start_unix`` | null, or seconds from 1970 to 2100-01-01 UTC (a clock not set says 1970: shown as it is) |
| ``video.codec`` | a name of at most 32 letters, digits, ``.``, ``_`` or ``-`` |
| ``audio_padded_samples`` | absent, null or a whole number from 0 to the samples the audio holds |
| ``duration_s`` | absent, null or a finite number from 0 to 1e9 s |

(The start_unix that is no date at all, 1e308 or NaN, stays one of ``check_recording``'s problems,
as before.)
"""
from __future__ import annotations

import math
import re
from typing import Any

from sensekit.safe_read import short

__all__ = ["damaged_values", "START_MIN", "START_MAX"]

START_MIN = 0.0                    # 1970-01-01 00:00 UTC (a clock not set; tests record at 0)
START_MAX = 4_102_444_800.0        # 2100-01-01 00:00 UTC
MAX_DURATION_S = 1e9
_CODEC = re.compile(r"[A-Za-z0-9._-]{1,32}")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def damaged_values(meta: dict[str, Any], samples: int | None) -> dict[str, str]:
    """``{key: why}`` of the reported values (module docstring) that are damaged; ``samples``: the
    audio samples the recording holds (``None``: not known, the range is not checked)."""
    out: dict[str, str] = {}
    start: Any = meta.get("start_unix")
    if _number(start) and math.isfinite(float(start)) and not START_MIN <= float(start) < START_MAX:
        out["start_unix"] = f"{short(start)} is not a time of recording (before 1970 or after 2100)"
    video = meta.get("video")
    if isinstance(video, dict) and "codec" in video:
        codec = video["codec"]
        if not isinstance(codec, str) or not _CODEC.fullmatch(codec):
            out["video.codec"] = f"{short(codec)} is not a codec name"
    if meta.get("audio_padded_samples") is not None:
        padded = meta["audio_padded_samples"]
        if not isinstance(padded, int) or isinstance(padded, bool) or padded < 0:
            out["audio_padded_samples"] = f"{short(padded)} is not a whole number of samples"
        elif samples is not None and padded > samples:
            out["audio_padded_samples"] = f"{padded} is more than the {samples} samples the audio holds"
    if meta.get("duration_s") is not None:
        d = meta["duration_s"]
        if not _number(d) or not math.isfinite(float(d)) or not 0 <= float(d) <= MAX_DURATION_S:
            out["duration_s"] = f"{short(d)} is not a duration (a finite number of seconds, 0 to 1e9)"
    return out
