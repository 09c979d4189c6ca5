"""The fault matrix's rows for harden17: an incomplete recording whose audio cannot be read
(a WAV header or the first line of ``audio_crc.csv`` damaged) and the log rate limit's table
of kinds under word-varying text. ``uptime_rows`` adds them through the matrix's ``row``.
"""
from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Callable

Row = Callable[[str, str, str, bool], None]


class WarningLines(logging.Handler):
    """The messages of the WARNING (and above) records it is handed (the microphone rows use it too)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _damaged_audio_row(tmp: Path, rec: Path, row: Row, name: str, case: str,
                       damage: Callable[[Path], None]) -> None:
    from sensekit.capture.base import AudioBlock, VideoFrame
    from sensekit.capture.replay import ReplaySource
    from sensekit.cli.inspect import summary
    from sensekit.errors import RecordingError

    copy = Path(shutil.copytree(rec, tmp / name))
    damage(copy)
    meta = json.loads((copy / "meta.json").read_text())
    meta["complete"] = False
    (copy / "meta.json").write_text(json.dumps(meta))
    seen = WarningLines()
    logger = logging.getLogger("sensekit")
    logger.addHandler(seen)
    try:
        items = list(ReplaySource(copy))
    except RecordingError as exc:
        row("recording", case, f"replay: {exc}", False)
        return
    finally:
        logger.removeHandler(seen)
    frames = sum(isinstance(i, VideoFrame) for i in items)
    samples = sum(len(i.samples) for i in items if isinstance(i, AudioBlock))
    text, _ = summary(copy)
    says = "plays the video and skips the audio" in text
    row("recording", case, f"replay: {frames} of {meta['frames']} frames, {samples} samples, "
        f"{len(seen.lines)} line: {seen.lines[0] if seen.lines else '-'}; inspect says so: {says}",
        frames == meta["frames"] and samples == 0 and len(seen.lines) == 1 and says)


def _no_data_chunk(copy: Path) -> None:
    data = bytearray((copy / "audio.wav").read_bytes())
    at = data.index(b"data")
    data[at:at + 4] = b"dat\x00"
    (copy / "audio.wav").write_bytes(bytes(data))


def _crc_header(copy: Path) -> None:
    text = (copy / "audio_crc.csv").read_bytes()
    (copy / "audio_crc.csv").write_bytes(b"blocj" + text[5:])


def _rate_limit_rows(row: Row) -> None:
    from sensekit.ratelimit import MAX_KINDS, RateLimitFilter

    clock = [0.0]
    names = ["".join(chr(ord("a") + int(d)) for d in str(i)) for i in range(10_000)]

    def run(sends: Callable[[logging.Logger, RateLimitFilter], int]) -> tuple[int, int, int]:
        flt = RateLimitFilter(burst=5, interval_s=10.0, clock=lambda: clock[0])
        logger = logging.getLogger(f"sensekit.fault.ratelimit.{id(flt)}")
        logger.propagate, shown = False, WarningLines()
        shown.addFilter(flt)
        logger.handlers[:] = [shown]
        most = sends(logger, flt)
        return max(most, flt.kinds()), len(shown.lines), flt.suppressed_total

    def held_back(logger: logging.Logger, flt: RateLimitFilter) -> int:
        most = 0
        for i, name in enumerate(names[:2048]):
            clock[0] = i * 0.1
            for _ in range(6):
                logger.warning(f"client sent {name}")
            most = max(most, flt.kinds())
        return most

    def at_once(logger: logging.Logger, flt: RateLimitFilter) -> int:
        for i, name in enumerate(names):
            clock[0] = i * 0.0001
            logger.warning(f"client sent {name}")
        return 0

    def long_texts(logger: logging.Logger, flt: RateLimitFilter) -> int:
        import tracemalloc

        logger.handlers[0].emit = lambda record: None  # type: ignore[method-assign]
        texts = [chr(97 + i % 26) * 3 + f"{i:05d}" + "z" * 100_000 + chr(97 + i // 26 % 26) for i in range(600)]
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        for text in texts:
            for _ in range(6):
                logger.warning(text)
        held[0] = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
        return 0

    held = [0]
    run(long_texts)
    row("log rate limit", "600 different messages of 100 kB, each 6 times",
        f"{held[0] / 1e6:.1f} MB held by the filter", held[0] < 2_000_000)
    kinds, shown, counted = run(held_back)
    row("log rate limit", "2,048 kinds of text that vary in words, each repeated 6 times, one every 0.1 s",
        f"at most {kinds} kinds kept; {shown} lines shown, {counted} counted", kinds <= MAX_KINDS + 1)
    clock[0] = 0.0
    kinds, shown, counted = run(at_once)
    row("log rate limit", "10,000 new kinds of text in 1 s",
        f"{kinds} kinds kept; {shown} lines shown, {counted} counted",
        kinds <= MAX_KINDS + 1 and shown <= MAX_KINDS + 5)


def uptime_rows(tmp: Path, rec: Path, row: Row) -> None:
    """Every row of this file, each through ``row``."""
    _damaged_audio_row(tmp, rec, row, "no-data.skrec",
                       "incomplete, audio.wav's 'data' chunk id damaged ('has no data chunk')", _no_data_chunk)
    _damaged_audio_row(tmp, rec, row, "crc-head.skrec",
                       "incomplete, audio_crc.csv's header line damaged", _crc_header)
    _rate_limit_rows(row)
