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

A start that is a date but not a plausible one (``implausible_start``: before 2000-01-01, which a
machine whose clock was never set records, or more than a day ahead of the clock ``inspect`` runs
by) is no damage, the recording is whole, but it is not shown as a true date: ``started
implausible: start_unix 0 says 1970-01-01 00:00:00 UTC (clock not set?)``.

The lists of what the audio track lacks, ``audio_gaps`` and ``audio_jumps`` (``[at, samples]``
pairs of whole numbers, ``at`` counted in the samples written), and the devices' counts,
``source_drops`` (``{name: count}``), are shown by ``inspect`` entry by entry; ``kept_entries``
gives the entries it shows and ``dropped_entries`` says, for each key, how many it left out and
why (not a pair of whole numbers, beyond the samples a complete recording's audio holds, not a
count): ``inspect`` lists it under ``also`` (exit 1, as a damaged value), replay's log says it once
(it reads none of them).
"""
from __future__ import annotations

import math
import re
from typing import Any

from sensekit.safe_read import short

__all__ = ["damaged_values", "implausible_start", "kept_entries", "dropped_entries", "START_MIN",
           "START_MAX", "PLAUSIBLE_FROM", "RUNS"]

START_MIN = 0.0                    # 1970-01-01 00:00 UTC (a clock not set; tests record at 0)
START_MAX = 4_102_444_800.0        # 2100-01-01 00:00 UTC
MAX_DURATION_S = 1e9
PLAUSIBLE_FROM = 946_684_800.0     # 2000-01-01 00:00 UTC: before it, a clock never set
AHEAD_S = 86_400.0                 # a start more than a day ahead of the clock is a clock set wrong
RUNS = ("audio_gaps", "audio_jumps")
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


def implausible_start(start: Any, now: float) -> str | None:
    """Why ``start`` (``start_unix``, a date ``damaged_values`` accepts) is not a plausible time of
    recording, judged at ``now`` (seconds since 1970); ``None`` when it is plausible."""
    if not _number(start) or not math.isfinite(float(start)) or not START_MIN <= float(start) < START_MAX:
        return None                                    # damaged or absent: said elsewhere
    if float(start) < PLAUSIBLE_FROM:
        return "clock not set?"
    if float(start) > now + AHEAD_S:
        return "more than a day ahead of this machine's clock: clock set wrong?"
    return None


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _sorted_out(meta: dict[str, Any], key: str, samples: int | None) -> tuple[list[Any], dict[str, int]]:
    """(the entries of ``meta[key]`` kept, ``{why: count}`` of those left out)."""
    value = meta.get(key)
    why: dict[str, int] = {}
    kept: list[Any] = []
    if key == "source_drops":
        if not isinstance(value, dict):
            return [], {f"not a table of counts but {short(value, 30)}": 1}
        for name, n in value.items():
            if _whole(n):
                kept.append((str(name), n))
            else:
                why["not a whole number of losses"] = why.get("not a whole number of losses", 0) + 1
        return kept, why
    if not isinstance(value, list):
        return [], {f"not a list but {short(value, 30)}": 1}
    for entry in value:
        if not (isinstance(entry, list) and len(entry) == 2 and all(_whole(v) for v in entry)):
            reason = "not a pair of whole numbers [at, samples]"
        elif samples is not None and entry[0] + (entry[1] if key == "audio_gaps" else 0) > samples:
            reason = f"beyond the {samples} samples the audio holds"
        else:
            kept.append((entry[0], entry[1]))
            continue
        why[reason] = why.get(reason, 0) + 1
    return kept, why


def kept_entries(meta: dict[str, Any], key: str, samples: int | None) -> list[Any]:
    """The entries of ``meta[key]`` (``RUNS`` or ``source_drops``) that are whole: ``(at, n)`` pairs,
    or ``(name, count)``; ``samples``: what a complete recording's audio holds (``None``: unknown)."""
    if meta.get(key) is None:
        return []
    return _sorted_out(meta, key, samples)[0]


def dropped_entries(meta: dict[str, Any], samples: int | None) -> dict[str, str]:
    """``{key: what was left out and why}`` for ``audio_gaps``, ``audio_jumps`` and ``source_drops``
    (``samples``: what a complete recording's audio holds; ``None``: unknown, not bounded)."""
    out: dict[str, str] = {}
    for key in (*RUNS, "source_drops"):
        value = meta.get(key)
        if value is None:
            continue
        kept, why = _sorted_out(meta, key, samples)
        if not why:
            continue
        if not isinstance(value, dict if key == "source_drops" else list):
            out[key] = "its value left out: " + next(iter(why))
        else:
            n = sum(why.values())
            out[key] = f"{n} of {n + len(kept)} entries left out: " + "; ".join(f"{c} {w}" for w, c in why.items())
    return out
