"""Check a recording against what its files really hold: the report ``sensekit inspect`` prints.

``check_recording(path, decode=True)`` reads ``meta.json`` (a folder that is
not a recording raises ``RecordingError``, as everywhere) and then trusts
nothing else it says:

- **Video**: every frame is decoded, with the same OpenCV/FFmpeg path replay
  uses (without the colour conversion), and counted per file. Version 2
  segments must decode exactly the frames their names promise; gaps, overlaps
  and segments past the timestamps are reported. ``playable_frames`` is what
  ``ReplaySource`` plays for an incomplete recording; for a complete one any
  problem means replay stops with ``RecordingError``.
- **Audio**: the samples the WAV *holds* (from its size) are compared with
  what its header *claims* and what ``meta.json`` says; the header's claim is
  never reported as the length.
- **Metadata**: a ``start_unix`` that is no date, timestamps that do not parse; the values
  replay does not read but ``inspect`` reports, checked by ``meta_reported.py`` (``damaged_meta``,
  each a note).

The result says ``status``: ``"intact"`` (complete, nothing wrong),
``"incomplete"`` (the recorder stopped without finishing, e.g. SIGKILL; it
replays what it saved) or ``"damaged"`` (``problems`` lists what). Facts that
are not damage (the unfinished segment a killed recorder leaves, samples after
the last header patch) are in ``notes``.

Cost: a full decode, spread over up to 4 threads (segments in parallel):
about 1-10 ms per frame by size and content; ``decode=False`` reads only names
and headers (instant) and then cannot vouch for the frames.
"""
from __future__ import annotations

import datetime as dt
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.capture.checksums import (AUDIO_CRC_HEADER, VIDEO_CRC_HEADER, checksums_cap, crc32_of,
                                        read_checksums)
from sensekit.capture.recording_meta import (audio_offset_problem, missing_named_files, read_meta,
                                             read_video_times)
from sensekit.capture.replay import VideoUnit, frame_checksum_rows, skips_damaged_audio, video_units
from sensekit.capture.video_segments import count_decodable, list_segments, open_capture
from sensekit.capture.wav import read_wav_info
from sensekit.errors import RecordingError
from sensekit.safe_read import read_regular

MAX_DECODE_THREADS = 4


@dataclass
class VideoReport:
    width: int
    height: int
    fps: float
    fps_from: str
    fps_measured: float | None
    listed_frames: int                 # rows in the timestamps file
    playable_frames: int | None        # frames replay plays (None: not decoded)
    segments: int                      # committed segment files (version 2), else 1
    files_bytes: int
    unverified: str | None = None      # why the decoded frames could not be checked (the
                                       # checksum file named in meta.json is missing/unreadable)
    times_unverified: str | None = None    # the same for the frame times (video_ts_crc.csv)
    gaps: list[tuple[float, float]] = field(default_factory=list)   # (at, seconds) with no frame


@dataclass
class AudioReport:
    sample_rate: int
    channels: int
    gain: float
    block_size: int
    header_samples: int | None         # what the WAV header claims
    file_samples: int | None           # what the file holds after the header
    playable_samples: int              # what replay plays (complete: what the file holds,
                                       # up to meta's count; replay refuses a mismatch)


#: the least stretch with no frame that ``inspect`` names (as ``audio_gaps`` names the audio's)
VIDEO_GAP_S = 1.0


@dataclass
class RecordingReport:
    path: Path
    meta: dict[str, Any]
    complete: bool
    start: str | None = None
    video: VideoReport | None = None
    audio: AudioReport | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[tuple[str, int]] = field(default_factory=list)    # (name, bytes)
    decoded: bool = True
    missing: list[str] = field(default_factory=list)  # files meta.json names that are not there:
                                                      # replay refuses the recording
    damaged_meta: dict[str, str] = field(default_factory=dict)    # reported values of meta.json
                                       # that are damaged (meta_reported.py): not shown as true
    held_samples: int | None = None    # the samples a complete recording's audio holds (else None)
    audio_skipped: str | None = None   # why replay skips a damaged audio track and plays the
                                       # video alone (incomplete recordings only)

    @property
    def status(self) -> str:
        if self.problems:
            return "damaged"
        return "intact" if self.complete else "incomplete"

    @property
    def duration_s(self) -> float:
        d = 0.0
        if self.video is not None and self._last_frame_t is not None:
            d = self._last_frame_t + 1.0 / self.video.fps
        if self.audio is not None and self.audio.playable_samples:
            d = max(d, float(self.meta["audio_offset_s"])
                    + self.audio.playable_samples / self.audio.sample_rate)
        return d

    _last_frame_t: float | None = None
    _times_unverified: str | None = None     # why the frame times could not be checked
    _listed_last_t: float | None = None      # the last time video_ts.csv lists
    _times_cut = False                       # the times stop at a row that failed its checksum


def _start_text(value: Any) -> tuple[str | None, str | None]:
    """(formatted UTC time, problem) for ``start_unix``."""
    if value is None:
        return None, None
    try:
        start = dt.datetime.fromtimestamp(float(value), tz=dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None, f"meta.json `start_unix` {value!r} is not a date"
    return start.strftime("%Y-%m-%d %H:%M:%S UTC"), None


def _size(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.iterdir() if p.is_file())
        return path.stat().st_size
    except OSError:
        return 0


def _decode_checked(unit: VideoUnit, size: tuple[int, int], crcs: np.ndarray
                    ) -> tuple[int, str | None, list[int]]:
    """Frames of ``unit`` that decode (up to one more than it should hold), why it stopped early,
    and the rows among them whose frame does not match its checksum (or has none)."""
    import cv2

    n, why = count_decodable(unit.path, size, limit=0)       # the checks before decoding
    if why is not None:
        return 0, why, []
    cap = open_capture(unit.path)
    if cap is None:
        return 0, "cannot be opened as video", []
    bad: list[int] = []
    try:
        while n < unit.count + 1:
            try:
                ok, image = cap.read()
            except cv2.error:
                ok, image = False, None
            if not ok or image is None:
                break
            row = unit.first + n
            if n < unit.count and (row >= len(crcs) or crc32_of(image) != int(crcs[row])):
                bad.append(row)
            n += 1
    finally:
        cap.release()
    return n, None, bad


def _rows_text(rows: list[int]) -> str:
    return ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")


def _count_all(units: list[VideoUnit], size: tuple[int, int], crcs: np.ndarray | None
               ) -> list[tuple[int, str | None, list[int]]]:
    def one(u: VideoUnit) -> tuple[int, str | None, list[int]]:
        if crcs is not None:
            return _decode_checked(u, size, crcs)
        return (*count_decodable(u.path, size, limit=u.count + 1), [])
    if len(units) <= 1:
        return [one(u) for u in units]
    workers = max(1, min(MAX_DECODE_THREADS, os.cpu_count() or 1, len(units)))
    with ThreadPoolExecutor(max_workers=workers) as pool:    # cv2 releases the GIL
        return list(pool.map(one, units))


def _check_video(rep: RecordingReport, decode: bool) -> None:
    meta, path = rep.meta, rep.path
    v = meta["video"]
    rows_t = _video_timestamps(rep, v)
    rows = 0 if rows_t is None else len(rows_t)
    if rows:
        assert rows_t is not None
        rep._listed_last_t = float(rows_t[-1])
    crcs, unverified = _video_checksums(rep, v, None if rows_t is None else rows)
    version = meta["version"]
    store = path / (v["file"] if version == 1 else v["segments"])
    units, segments = _video_store(rep, v, store, rows, times_known=rows_t is not None)
    playable: int | None = None
    last_row: int | None = None
    if decode:
        playable, last_row = _decode_units(rep, units, crcs)
    else:
        rep.decoded = False
        covered = [u for u in units if u.exact] if version > 1 else []
        if covered:
            last_row = covered[-1].first + covered[-1].count - 1
    covered_rows = sum(u.count for u in units) if version > 1 else rows
    if version > 1 and covered_rows < rows and rows_t is not None:
        _uncommitted_tail(rep, units, rows_t)
    if last_row is not None and rows_t is not None and last_row < rows:
        rep._last_frame_t = float(rows_t[last_row])
    rep.video = VideoReport(v["width"], v["height"], float(v["fps"]), v.get("fps_from", "source"),
                            v.get("fps_measured"), rows, playable, segments, _size(store), unverified,
                            rep._times_unverified, video_gaps(rows_t))


def video_gaps(times: np.ndarray | None) -> list[tuple[float, float]]:
    """Stretches with no frame: intervals of at least ``VIDEO_GAP_S`` and 5 times the median
    (a camera lost and reconnected while recording; the replay keeps the gap, frames at their
    times). ``(at, seconds)``, ``at`` the time of the frame before it."""
    if times is None or len(times) < 3:
        return []
    d = np.diff(times)
    limit = max(VIDEO_GAP_S, 5.0 * float(np.median(d)))
    return [(float(times[i]), float(d[i])) for i in np.flatnonzero(d >= limit)]


def _video_timestamps(rep: RecordingReport, v: dict[str, Any]) -> np.ndarray | None:
    """The frame times (the intact prefix), ``None`` when the file is missing or unreadable."""
    ts_path = rep.path / v["timestamps"]
    rows_t = None
    if not ts_path.is_file():
        rep.problems.append(f"the timestamps file '{v['timestamps']}' is missing")
        return None
    if v["timestamps_checksums"] is None:
        rep.notes.append("no timestamp checksums (recorded before sensekit stored them): "
                         "frame times are not verified")
    elif not (rep.path / v["timestamps_checksums"]).is_file():
        # the times are still there: read them unverified (that problem is named), so the frames
        # are counted and checked; they were '0 frames'
        rep.problems.append(f"the checksum file '{v['timestamps_checksums']}' is missing")
        rep._times_unverified = f"'{v['timestamps_checksums']}' is missing"
        v = {**v, "timestamps_checksums": None}
    frames = rep.meta["frames"]
    try:
        def cut(text: str) -> None:              # a row failed its checksum: the times stop there
            rep._times_cut = True
            rep.problems.append(text)

        rows_t = read_video_times(rep.path, v, frames, complete=False, warn=None if rep.complete else cut)
        if rep.complete:
            read_video_times(rep.path, v, frames, complete=True)
    except RecordingError as exc:
        rep.problems.append(str(exc))
    if rep.complete and rows_t is not None and len(rows_t) != rep.meta["frames"]:
        rep.problems.append(f"'{v['timestamps']}' lists {len(rows_t)} frames but meta.json says "
                            f"{rep.meta['frames']}")
    return rows_t


def _video_checksums(rep: RecordingReport, v: dict[str, Any], rows: int | None
                     ) -> tuple[np.ndarray | None, str | None]:
    """The frame checksums (``None``: none to check against) and, when meta.json names a
    checksum file that is missing or unreadable, why (that problem is named; the frames are
    then decoded and counted, not verified). ``rows``: the frames the timestamps list (``None``:
    unreadable, so neither the file's size nor its rows are judged)."""
    if v["checksums"] is None:
        rep.notes.append("no frame checksums (recorded before sensekit stored them): frames are not verified")
        return None, None
    try:
        crcs = read_checksums(rep.path / v["checksums"], VIDEO_CRC_HEADER, complete=rep.complete,
                              max_bytes=checksums_cap(frame_checksum_rows(rep.meta, rows, complete=rep.complete,
                                                                          times_cut=rep._times_cut)))
        if rep.complete and rows is not None and len(crcs) != rows:
            rep.problems.append(f"'{v['checksums']}' lists {len(crcs)} checksums for {rows} frames")
    except RecordingError as exc:
        rep.problems.append(str(exc))
        gone = not (rep.path / v["checksums"]).is_file()
        return None, f"'{v['checksums']}' is {'missing' if gone else 'unreadable'}"
    return crcs, None


def _video_store(rep: RecordingReport, v: dict[str, Any], store: Path, rows: int, *,
                 times_known: bool = True) -> tuple[list[VideoUnit], int]:
    """The units to decode (a version 1 file, or the committed segments) and the segment count.
    Without readable timestamps (``times_known`` false; that problem is named already) the
    segments are not judged against them: each would be 'past the timestamps'."""
    if rep.meta["version"] == 1:
        if not store.is_file():
            rep.problems.append(f"the video file '{v['file']}' is missing")
            return [], 1
        return [VideoUnit(store, 0, rows, exact=False)], 1
    if not store.is_dir():
        rep.problems.append(f"the video folder '{v['segments']}/' is missing")
        return [], 1
    units, layout = video_units(rep.path, rep.meta, rows)
    found, partial, other = list_segments(store)
    if times_known:
        rep.problems.extend(f"{v['segments']}/: {p}" for p in layout)
    if partial:
        what = (f"{len(partial)} unfinished segment file(s) "
                f"({', '.join(p.name for p in partial[:3])}): the recorder stopped while "
                "writing them; their frames are not played")
        (rep.problems if rep.complete else rep.notes).append(what)
    if other:
        rep.notes.append(f"{v['segments']}/ also holds {len(other)} other file(s), ignored "
                         f"({', '.join(p.name for p in other[:3])})")
    _check_playlist(rep, [seg.path.name for seg in found])
    return units, len(found)


def _decode_units(rep: RecordingReport, units: list[VideoUnit],
                  crcs: np.ndarray | None) -> tuple[int, int | None]:
    """Decode every unit: the playable frames and the last playable row."""
    v = rep.meta["video"]
    playable = 0
    last_row: int | None = None
    for unit, (n, why, bad) in zip(units, _count_all(units, (v["width"], v["height"]), crcs)):
        wrong = [r for r in bad if crcs is not None and r < len(crcs)]
        if wrong:
            rep.problems.append(f"'{unit.label}': frame(s) {_rows_text(wrong)} do not match their "
                                "checksums (damaged; replay skips them, or stops if complete)")
        if len(wrong) < len(bad) and crcs is not None and len(crcs):   # an unreadable file is named already
            rep.problems.append(f"'{unit.label}': frame(s) {_rows_text(bad[len(wrong):])} have no "
                                f"checksum in '{v['checksums']}' (not verified; replay skips them, "
                                "or stops if complete)")
        if unit.exact:
            if n == unit.count:
                playable += n - len(bad)
                last_row = unit.first + n - 1
                continue
            rep.problems.append(f"'{unit.label}' ({unit.count} frames) "
                                f"{why or f'decodes {n} frames'}"
                                + ("" if why else f", not {unit.count}"))
        else:
            good = min(n, unit.count)
            playable += good - len([r for r in bad if r < good])
            last_row = good - 1 if good else None
            if good < unit.count:
                text = (f"'{unit.label}' {why + ': ' if why else ''}only {good} of the "
                        f"{unit.count} listed frames decode")
                (rep.problems if rep.complete else rep.notes).append(text)
    return playable, last_row


def _uncommitted_tail(rep: RecordingReport, units: list[VideoUnit], rows_t: np.ndarray) -> None:
    """Frames listed in the timestamps after the last committed segment."""
    tail_from = (units[-1].first + units[-1].count) if units else 0
    lost = len(rows_t) - tail_from
    if lost > 0:
        text = (f"the last {lost} listed frames (from t = {rows_t[tail_from]:.3f} s) were never "
                "committed to a segment")
        (rep.problems if rep.complete else rep.notes).append(text)


def _check_playlist(rep: RecordingReport, committed: list[str]) -> None:
    """``video.ffconcat`` (for ffplay/ffmpeg) must list the committed segments in order (in an
    incomplete recording the two may differ by the last segment, the one being switched when
    the recorder was killed)."""
    v = rep.meta["video"]
    path = rep.path / v["playlist"]
    try:
        raw = read_regular(path, max_bytes=64 * (len(committed) + 2), what=f"'{v['playlist']}'",
                           error=RecordingError)
    except FileNotFoundError:
        rep.problems.append(f"the playlist '{v['playlist']}' is missing (ffplay cannot play the video)")
        return
    except RecordingError as exc:
        rep.problems.append(str(exc))
        return
    lines = raw.decode("ascii", "replace").splitlines()
    listed = [ln[len("file "):].partition("/")[2] for ln in lines[1:]]
    prefix = f"file {v['segments']}/"
    ok = (lines[:1] == ["ffconcat version 1.0"] and all(ln.startswith(prefix) for ln in lines[1:])
          and (listed == committed or (not rep.complete and abs(len(committed) - len(listed)) <= 1
                                       and listed[:len(committed)] == committed[:len(listed)])))
    if not ok:
        rep.problems.append(f"the playlist '{v['playlist']}' does not list the {len(committed)} committed "
                            "segments in order (ffplay would play something else); it is damaged")


def _playable_samples(rep: RecordingReport, name: str, header: int, held: int) -> int:
    """The samples per channel a replay plays: what the header, the file and meta.json agree
    on; what they disagree on is a problem (complete) or a note (killed while writing)."""
    if rep.complete:
        want = rep.meta["audio_samples"]
        if header != want:
            rep.problems.append(f"'{name}': its header claims {header} samples per "
                                f"channel, meta.json says {want}")
        if held < want:
            rep.problems.append(f"'{name}' holds only {held} samples per channel, "
                                f"meta.json says {want}")
        return int(min(held, want))            # what the file really holds
    if header > held:
        rep.problems.append(f"'{name}': its header claims {header} samples per "
                            f"channel but the file holds only {held}")
    elif held > header:
        rep.notes.append(f"'{name}' holds {held - header} samples after its last "
                         "patched header (written after the last flush); not played")
    return min(header, held)


def _check_audio(rep: RecordingReport) -> None:
    meta, path = rep.meta, rep.path
    a = meta["audio"]
    header = held = None
    playable = 0
    wav = path / a["file"]
    if not wav.is_file():
        rep.problems.append(f"the audio file '{a['file']}' is missing")
    else:
        unreadable = None
        try:
            info = read_wav_info(wav)
        except RecordingError as exc:
            unreadable = str(exc)
        else:
            header, held = info.declared_frames, info.available_frames
            if (info.rate, info.channels) != (a["sample_rate"], a["channels"]):
                unreadable = (f"'{a['file']}' is {info.rate} Hz x {info.channels} channels "
                              f"but meta.json says {a['sample_rate']} Hz x {a['channels']}")
            else:
                playable = _playable_samples(rep, a["file"], header, held)
            if playable:
                unreadable = _check_pcm(rep, wav, info.data_offset, playable, max(header, held))
        if unreadable is not None:
            rep.problems.append(unreadable)
            if skips_damaged_audio(meta):          # as ReplaySource: the video plays alone
                rep.audio_skipped, playable = unreadable, 0
    rep.audio = AudioReport(a["sample_rate"], a["channels"], float(a["gain"]), a["block_size"],
                            header, held, playable)


def _check_pcm(rep: RecordingReport, wav: Path, data_offset: int, playable: int, claimed: int) -> str | None:
    """Compare the playable samples' chunks with their stored checksums. An incomplete
    recording's checksum file is capped by the samples the WAV claims or holds (``claimed``), as
    the replay caps it: its rows may run past what plays. Returns why the checksum file cannot
    be read (replay refuses the audio then), else None."""
    a = rep.meta["audio"]
    if a["checksums"] is None:
        rep.notes.append("no audio checksums (recorded before sensekit stored them): samples are not verified")
        return None
    cb, ch = a["checksum_block"], a["channels"]
    chunks = -(-playable // cb)
    most = chunks if rep.complete else -(-max(playable, claimed) // cb)
    try:
        crcs = read_checksums(rep.path / a["checksums"], AUDIO_CRC_HEADER, complete=rep.complete,
                              max_bytes=checksums_cap(most))
    except RecordingError as exc:
        return str(exc)
    if rep.complete and len(crcs) != chunks:
        rep.problems.append(f"'{a['checksums']}' lists {len(crcs)} checksums for {chunks} blocks")
    bad = []
    with open(wav, "rb") as f:
        for k in range(min(chunks, len(crcs))):
            f.seek(data_offset + k * cb * 2 * ch)
            n = min(cb, playable - k * cb) if rep.complete else cb
            if crc32_of(f.read(n * 2 * ch)) != int(crcs[k]):
                bad.append(k)
    if bad:
        where = ", ".join(f"{k * cb}-{(k + 1) * cb - 1}" for k in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        rep.problems.append(f"'{a['file']}': samples {where}{more} do not match their checksums "
                            "(damaged; replay plays silence there, or stops if complete)")
    if not rep.complete and len(crcs) < chunks:
        rep.notes.append(f"the last {playable - len(crcs) * cb} samples have no checksum yet "
                         "(written after the last flush); played unverified")
    return None


def _check_reported(rep: RecordingReport, start_is_no_date: bool) -> None:
    """The values replay does not read but ``inspect`` reports (``meta_reported.py``): each damaged
    one a note, and not shown."""
    import time

    from sensekit.capture.meta_reported import damaged_values, dropped_entries, implausible_start

    held = rep.meta["audio_samples"]
    if held is None and rep.audio is not None:
        held = rep.audio.playable_samples
    rep.damaged_meta = damaged_values(rep.meta, held)
    if start_is_no_date:                 # already a problem: "is not a date"
        rep.damaged_meta.pop("start_unix", None)
    if "start_unix" in rep.damaged_meta:
        rep.start = None
    for key, why in rep.damaged_meta.items():
        rep.notes.append(f"meta.json is damaged: `{key}` {why}; not shown (replay does not read it)")
    rep.held_samples = held if rep.complete and rep.audio is not None else None
    dropped = dropped_entries(rep.meta, rep.held_samples)
    for key, why in dropped.items():
        rest = "not shown" if why.startswith("its value") else "the rest is shown"
        rep.notes.append(f"meta.json is damaged: `{key}`: {why}; {rest} (replay does not read it)")
    rep.damaged_meta.update(dropped)
    odd = implausible_start(rep.meta["start_unix"], time.time())
    if odd is not None and rep.start is not None:
        rep.start = f"implausible: start_unix {rep.meta['start_unix']!r} says {rep.start} ({odd})"


def check_recording(path: str | os.PathLike[str], *, decode: bool = True) -> RecordingReport:
    """Check a recording's files (see the module docstring). ``RecordingError`` if no recording."""
    rec = Path(path)
    meta = read_meta(rec)
    rep = RecordingReport(rec, meta, bool(meta["complete"]))
    rep.start, no_date = _start_text(meta["start_unix"])
    if no_date:
        rep.problems.append(no_date)
    if meta["video"] is not None:
        _check_video(rep, decode)
    if meta["audio"] is not None:
        problem = audio_offset_problem(meta, rep._listed_last_t)
        if problem is not None:
            rep.problems.append(f"'meta.json': {problem}")
        _check_audio(rep)
    _check_reported(rep, bool(no_date))
    rep.missing = missing_named_files(rec, meta)
    for p in sorted(rec.iterdir()):
        if p.is_file() or p.is_dir():
            rep.files.append((p.name + ("/" if p.is_dir() else ""), _size(p)))
    return rep
