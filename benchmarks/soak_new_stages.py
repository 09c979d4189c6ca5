"""Soak of last session's stages: do blob splitting, taught words and the panel's sound card grow?

    nice -n 15 .venv/bin/python benchmarks/soak_new_stages.py [--passes 8] [--seconds 12]
                                                              [--only vision|voice]

Two loops, each a recording made here from real data (``../shared/data``) and replayed with
``ReplaySource(loop=True)`` through a ``Runner`` with a handler on ``"*"`` (every stage runs):

- **vision**: the first ``--seconds`` of the PETS 2009 people clip through ``VisionStage`` with
  motion and ``BlobTracker`` at its defaults (``split_aspect`` 0.65: people side by side are
  split; ``blob_split``);
- **voice**: theo's spoken digits 0-9 (takes 10-13, half a second apart) through ``VoiceStage``
  with taught words (one, nine: ``teach_words`` on takes 0-3, the other digits as other speech)
  and taught sounds, and the panel's sound card (``SoundTeachControl``) hooked on it: every pass
  it records "five" (up to 5 examples), learns (the stage's book is replaced) and, every other
  pass, forgets it.

Readings are taken at the same point of the loop (the end of a pass); tracing starts after a
warm-up pass and the first reading is the end of the next (traced) pass, once every buffer
has been replaced by a traced one: Python's traced allocations (``tracemalloc``) against it,
``sys.getallocatedblocks()`` and the resident set size (``/proc/self/statm``). Printed per
pass, then the growth from the first reading to the last and over the second half (readings of
the same parity: the card holds its examples on even passes). A leak of one float per item
reads +24 bytes an item. This is a benchmark, not a test: nothing is asserted.

Cost: tracemalloc roughly doubles the time; ~5-10 s per vision pass of 12 s of footage and
~3-6 s per voice pass on this 2-core machine at nice 15. Needs the voice extra and
``../shared/data``. Linux only (RSS from ``/proc``).
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
PETS = DATA / "video" / "people" / "pets2009_vtest_part1.mp4"
WORDS = DATA / "words"
QUIET = {"5_theo_5", "4_theo_1"}        # takes WebRTC calls unvoiced (docs/voice.md)


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def take(digit: int, k: int) -> tuple[np.ndarray, int]:
    import soundfile as sf

    x, rate = sf.read(str(WORDS / f"{digit}_theo_{k}.wav"), dtype="float32")
    return x, int(rate)


def record(source_path: Path, out: Path, seconds: float) -> Path:
    from sensekit.capture.record_loop import record_source
    from sensekit.capture.spec import open_source

    record_source(open_source(str(source_path)), out, seconds=seconds, progress=False)
    return out


def vision_run(tmp: Path, seconds: float) -> tuple[Any, list[Any], int]:
    from sensekit.vision.blob_tracker import BlobTracker
    from sensekit.vision.motion import MotionDetector
    from sensekit.vision.pipeline import VisionStage

    rec = record(PETS, tmp / "pets.skrec", seconds)
    stage = VisionStage(motion=MotionDetector(), blobs=BlobTracker())
    return rec, [stage], 0


def voice_run(tmp: Path) -> tuple[Any, list[Any], Any]:
    import soundfile as sf

    from sensekit.audio.sounds import SoundBook, example_segment
    from sensekit.audio.taught_words import teach_words
    from sensekit.audio.voice import VoiceStage
    from sensekit.panel.teach_sound import SoundTeachControl

    takes = {w: [example_segment(*take(d, k)) for k in range(4)] for d, w in ((1, "one"), (9, "nine"))}
    others = [example_segment(*take(d, k)) for d in (2, 3, 6, 7) for k in range(2)
              if f"{d}_theo_{k}" not in QUIET]
    taught = teach_words(takes, others)
    book = SoundBook()
    book.teach("seven", [example_segment(*take(7, k)) for k in range(3)])
    rate = take(0, 10)[1]
    gap = np.zeros(rate // 2, np.float32)
    parts = [gap]
    for k in range(10, 14):
        for d in range(10):
            parts += [take(d, k)[0], gap]
    wav = tmp / "said.wav"
    sf.write(str(wav), np.concatenate(parts), rate)
    rec = record(wav, tmp / "said.skrec", 1e6)
    stage = VoiceStage({"words": ("one", "nine")}, sounds=book, taught=taught)
    card = SoundTeachControl(lambda: [stage], tmp / "venue.toml")
    return rec, [stage], card


def pass_items(rec: Path) -> int:
    from sensekit.capture.recording import read_meta

    meta = read_meta(rec)
    blocks = 0
    if meta["audio"] is not None:
        blocks = -(-int(meta["audio_samples"]) // int(meta["audio"]["block_size"]))
    return int(meta["frames"]) + blocks


def card_step(card: Any, k: int, *, before: bool) -> None:
    """The sound card's requests around pass ``k``: record "five" before it; learn after it and,
    every other pass, forget it (its examples are dropped; the learned sound stays)."""
    from sensekit.errors import ConfigError

    if card is None:
        return
    with contextlib.suppress(ConfigError):          # e.g. nothing heard yet to learn
        if before:
            card.act("record", "five")
        else:
            card.act("learn")
            if k % 2:
                card.act("forget", "five")


def soak(name: str, rec: Path, stages: list[Any], card: Any, passes: int) -> None:
    from sensekit.capture.replay import ReplaySource
    from sensekit.runner import Runner

    source = ReplaySource(rec, loop=True)
    source.open()
    runner = Runner(source, stages)
    runner.dispatcher.on("*", lambda e: None)
    p = pass_items(rec)
    print(f"\n{name}: {p} items a pass ({rec.name})")
    print(f"{'pass':>4} {'items':>7} {'traced kB':>10} {'vs first':>9} {'blocks':>9} {'RSS MB':>7} "
          f"{'s/pass':>6}  events")
    readings: list[tuple[int, int, float]] = []
    with source:
        for k in range(passes + 1):
            t0 = time.monotonic()
            card_step(card, k, before=True)
            runner.run(max_items=p)
            card_step(card, k, before=False)
            took = time.monotonic() - t0
            gc.collect()
            if k == 0:
                tracemalloc.start(1)           # after the warm-up pass: models are loaded
            traced = tracemalloc.get_traced_memory()[0]
            if k == 1:                         # a traced pass later: every buffer replaced once
                first_snap = tracemalloc.take_snapshot()
            if k >= 1:
                readings.append((traced, sys.getallocatedblocks(), rss_mb()))
            counts = ", ".join(f"{n} {c}" for n, c in sorted(runner.stats.event_counts.items()))
            vs = f"{(traced - readings[0][0]) / 1e3:>+9.1f}" if readings else f"{'-':>9}"
            print(f"{k:>4} {runner.stats.frames + runner.stats.blocks:>7} {traced / 1e3:>10.1f} "
                  f"{vs} {sys.getallocatedblocks():>9} {rss_mb():>7.1f} {took:>6.1f}  {counts}", flush=True)
    top = tracemalloc.take_snapshot().compare_to(first_snap, "lineno")[:3]
    tracemalloc.stop()
    last = len(readings) - 1 - (len(readings) - 1) % 2       # the card holds the same examples
    mid = last // 2 - (last // 2) % 2
    for a in (0, mid):
        grown, n = readings[last][0] - readings[a][0], last - a
        print(f"{name}: passes {a + 1}-{last + 1}: traced {grown / 1e3:+.1f} kB ({grown / max(1, n) / 1e3:+.2f} kB "
              f"a pass, {grown / max(1, n * p):+.1f} bytes an item); allocated blocks "
              f"{readings[last][1] - readings[a][1]:+d}; RSS {readings[a][2]:.1f} -> {readings[last][2]:.1f} MB")
    for line in top:
        print(f"  {line}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=8, help="passes after the warm-up pass (the first is the baseline)")
    ap.add_argument("--seconds", type=float, default=12.0, help="seconds of the people clip to loop")
    ap.add_argument("--only", choices=("vision", "voice"))
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no shared data at {DATA}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "vision"):
            rec, stages, _ = vision_run(Path(tmp), args.seconds)
            soak("vision (motion + blobs, split on)", rec, stages, None, args.passes)
        if args.only in (None, "voice"):
            rec, stages, card = voice_run(Path(tmp))
            soak("voice (taught words + sounds + the panel's sound card)", rec, stages, card, args.passes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
