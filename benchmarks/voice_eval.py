"""Voice commands on the developer digits (../shared/data/words), leave one speaker out.

    python benchmarks/voice_eval.py [--takes N] [--triples 1,5,9 0,2,7 ...] [--skip-loso] [--skip-teach] [--widen]
                                    [--taught] [--repeat N]

``--widen``: the ``voice.widen_band`` setting on (the empty 4-8 kHz band of the 8 kHz digits
filled before recognition, ``sensekit.audio.narrowband``).

``--taught``: the false accepts, latency and speed below with the command words heard by a
classifier taught from takes (``sensekit teach words``), as ``events --profile P --words`` does:
taught from takes 40-49 of every speaker (the commands, and the other digits as other speech),
never from the takes 0..N-1 that are measured; the speed is then given for both paths.
``--repeat N``: each speed is the best of N runs, the configurations interleaved (the machine's
load moves a lot between runs).

Keyword detection: three digits are the commands, the other seven non-targets. Every take is
played through the real ``VoiceStage`` chain (8 kHz -> soxr 16 kHz -> WebRTC VAD -> PocketSphinx
keyword spotting) as one stream, each take between 0.6 s of silence. For each held-out speaker
the word threshold is chosen on the two others (the lowest with at most ``--fa`` false accepts
on their non-target takes) and applied to the held-out one: recall on its command takes (the
right word), false accepts on its non-target takes (any word). Then, with the shipped default
threshold: false accepts per hour on the non-target speech and music clips of
../shared/data/audio, the latency from a word's end to its event (audio time to the end of
the block that carries the event, plus the wall time that block took), and the speed of the
whole audio chain (``AudioStage`` with level, activity, clap and pitch, plus ``VoiceStage``)
in real-time multiples, on the digit stream (speech half of the time) and on a stream with one
command every 5 s.

Taught sounds: for each speaker the ten digits are taught from its first 3 (then 5) takes and
every other take of that speaker is matched (``SoundBook.nearest``, as ``sensekit teach sound``
and ``--sounds`` do): the share whose nearest sound is right, and the share accepted (within
1.5 x the sound's spread, the default ``voice.sound_distance``) and right / wrong.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _reference import SHARED_DATA
from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.audio.taught_words import TaughtWords
from sensekit.audio.vad import Segment
from sensekit.audio.voice import VoiceStage
from sensekit.capture.base import AudioBlock
from sensekit.events import Event, Word

DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
GAP_S = 0.6
STAGE: dict[str, Any] = {}               # extra VoiceStage settings (--widen)
TAUGHT: dict[str, TaughtWords] = {}      # {"taught": TaughtWords} (--taught)
#: one digit take: (digit, speaker, samples, rate)
Take = tuple[int, str, np.ndarray, int]
BLOCK_S = 0.02


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    import soundfile as sf

    x, rate = sf.read(str(path), dtype="float32", always_2d=False)
    if x.ndim == 2:
        x = x.mean(axis=1).astype(np.float32)
    return x, int(rate)


def load_digits(takes: int) -> list[Take]:
    with open(SHARED_DATA / "words" / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    out: list[Take] = []
    for r in rows:
        name = Path(r["file"]).stem                      # 7_theo_12
        digit, speaker, take = name.split("_")
        if int(take) < takes:
            x, rate = read_wav(SHARED_DATA / r["file"])
            out.append((int(digit), speaker, x, rate))
    return out


def stream_of(clips: list[np.ndarray], rate: int, gap_s: float = GAP_S) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """The clips one after another with silence between; each clip's (start, end) in seconds."""
    gap = np.zeros(int(gap_s * rate), np.float32)
    parts, spans, t = [gap], [], gap_s
    for x in clips:
        parts += [x, gap]
        spans.append((t, t + len(x) / rate))
        t += (len(x) + len(gap)) / rate
    return np.concatenate(parts), spans


def blocks(x: np.ndarray, rate: int) -> Iterator[AudioBlock]:
    n = max(1, int(BLOCK_S * rate))
    for i in range(0, len(x), n):
        yield AudioBlock(i // n, i / rate, x[i:i + n], rate, None)


class _Scoring(VoiceStage):
    """A ``VoiceStage`` that hands every voiced segment to ``on_segment`` instead of recognising it
    (the events it returns, none here, are the stage's)."""

    def __init__(self, values: dict[str, Any], on_segment: Callable[[VoiceStage, Segment], None],
                 **kwargs: Any) -> None:
        super().__init__(values, **kwargs)
        self.on_segment = on_segment

    def recognise(self, segment: Segment, t: float) -> list[Event]:
        self.on_segment(self, segment)
        return []


def all_segments(digits: Sequence[Take]) -> list[list[Segment]]:
    """Every voiced ``Segment`` the stage cuts within each take's span, longest first."""
    rate = digits[0][3]
    x, spans = stream_of([c[2] for c in digits], rate)
    segs: list[Segment] = []
    stage = _Scoring({"words": ("one",)}, lambda _stage, s: segs.append(s))
    for b in blocks(x, rate):
        stage.process(b)
    stage.finish()
    return [sorted((s for s in segs if s.end > a and s.start < b), key=lambda s: -len(s.pcm)) for a, b in spans]


def take_segments(digits: Sequence[Take]) -> list[Segment | None]:
    """The longest voiced ``Segment`` the stage cuts from each take (None if none)."""
    return [mine[0] if mine else None for mine in all_segments(digits)]


def segment_scores(words: tuple[str, ...], x: np.ndarray, rate: int) -> list[tuple[float, float, str, float]]:
    """(start, end, best word, best score) of every voiced segment the stage sees in ``x``."""
    found: list[tuple[float, float, str, float]] = []

    def recognise(stage: VoiceStage, segment: Segment) -> None:
        cands = stage.spotter.scores(segment)
        best = max(cands, key=lambda c: c[1], default=None)
        found.append((segment.start, segment.end, best[0] if best else "", best[1] if best else -np.inf))

    stage = _Scoring({"words": words, **STAGE}, recognise)    # score every segment, decide later
    for b in blocks(x, rate):
        stage.process(b)
    stage.finish()
    return found


def per_take(found: Sequence[tuple[float, float, str, float]],
             spans: Sequence[tuple[float, float]]) -> list[tuple[str, float]]:
    """The best (word, score) among the segments overlapping each take."""
    out: list[tuple[str, float]] = []
    for a, b in spans:
        best: tuple[str, float] = ("", -np.inf)
        for s, e, w, v in found:
            if e > a and s < b and v > best[1]:
                best = (w, v)
        out.append(best)
    return out


def loso(digits: Sequence[Take], triple: tuple[int, ...], fa_target: float) -> list[dict[str, Any]]:
    words = tuple(DIGITS[d] for d in triple)
    rate = digits[0][3]
    x, spans = stream_of([c[2] for c in digits], rate)
    takes = per_take(segment_scores(words, x, rate), spans)
    labels = np.array([c[0] for c in digits])
    speakers = np.array([c[1] for c in digits])
    said = np.array([w for w, _ in takes])
    score = np.array([v for _, v in takes])
    target = np.isin(labels, triple)
    right = said == np.array([DIGITS[d] for d in labels])
    rows: list[dict[str, Any]] = []
    for held in sorted(set(speakers)):
        train, test = speakers != held, speakers == held
        neg = np.sort(score[train & ~target])[::-1]     # -inf: no listed word covered the take
        k = int(np.floor(fa_target * len(neg)))
        thr = float(neg[k]) + 1e-6 if np.isfinite(neg[k]) else -20.0
        acc = np.isfinite(score) & (score >= thr)
        rows.append({"held_out": held, "threshold": thr,
                     "recall": float((acc & right)[test & target].mean()),
                     "false_accepts": float(acc[test & ~target].mean()),
                     "wrong_word": int((acc & ~right)[test & target].sum())})
    return rows


def false_accepts_per_hour(words: tuple[str, ...]) -> tuple[int, float, list[str]]:
    clips = sorted(p for p in (SHARED_DATA / "audio").glob("*.wav")
                   if p.name.startswith(("speech_", "music_")))
    count, seconds, hits = 0, 0.0, list[str]()
    for p in clips:
        x, rate = read_wav(p)
        if rate < 8000:
            continue
        stage = VoiceStage({"words": words, **STAGE})
        x = np.concatenate([x, np.zeros(int(0.5 * rate), np.float32)])
        events = [e for b in blocks(x, rate) for e in stage.process(b)] + stage.finish()
        count += len(events)
        seconds += len(x) / rate
        hits += [f"{p.name}: {e.word}" for e in events if isinstance(e, Word)]
    return count, seconds, hits


def latency_and_speed(digits: Sequence[Take], words: tuple[str, ...]) -> dict[str, float]:
    rate = digits[0][3]
    wanted = [c for c in digits if DIGITS[c[0]] in words][:60]
    x, spans = stream_of([c[2] for c in wanted], rate)
    ends: list[float] = []
    for (a, _b), c in zip(spans, wanted):        # the word's end: its last 10 ms within 30 dB of its peak
        clip = c[2]
        hop = rate // 100
        e = np.array([np.sqrt(np.mean(clip[i:i + hop] ** 2)) for i in range(0, len(clip) - hop + 1, hop)])
        loud = np.nonzero(e > e.max() * 10 ** (-30 / 20))[0]      # -30 dB under its peak
        ends.append(a + (loud[-1] + 1) * hop / rate)
    stage = VoiceStage({"words": words, **STAGE}, taught=TAUGHT.get("taught"))
    lat: list[float] = []
    heard: list[float] = []
    compute: list[float] = []
    for b in blocks(x, rate):
        t0 = time.perf_counter()
        events = stage.process(b)
        wall = time.perf_counter() - t0
        for ev in events:
            assert isinstance(ev, Word), ev                   # a VoiceStage says words only
            end = min(ends, key=lambda v: abs(v - ev.end))
            lat.append(ev.t - end + wall)
            heard.append(ev.t - end)
            compute.append(wall)

    def ms(v: list[float], q: float) -> float:
        return 1000 * float(np.percentile(v, q))
    return {"latency_ms_median": ms(lat, 50), "latency_ms_p95": ms(lat, 95),
            "audio_ms_median": ms(heard, 50), "audio_ms_p95": ms(heard, 95),
            "compute_ms_median": ms(compute, 50), "compute_ms_p95": ms(compute, 95),
            "latency_events": len(lat), "words_said": len(wanted)}


def chain_speed(x: np.ndarray, rate: int, words: tuple[str, ...], voice: bool) -> float:
    audio = AudioStage(activity=ActivityDetector(), clap=ClapDetector(), pitch=PitchTracker())
    stages: list[AudioStage | VoiceStage] = [audio]
    if voice:
        stages.append(VoiceStage({"words": words, **STAGE}, taught=TAUGHT.get("taught")))
    items = list(blocks(x, rate))
    t0 = time.perf_counter()
    for b in items:
        for s in stages:
            s.process(b)
    return (len(x) / rate) / (time.perf_counter() - t0)


def taught_words(words: tuple[str, ...]) -> TaughtWords:
    """A ``TaughtWords`` for ``words`` from takes 40-49 of every speaker (--taught)."""
    from sensekit.audio.sounds import example_segment
    from sensekit.audio.taught_words import teach_words
    from sensekit.errors import ConfigError

    takes: dict[str, list[Segment]] = {w: [] for w in words}
    others: list[Segment] = []
    with open(SHARED_DATA / "words" / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        digit, _speaker, take = Path(r["file"]).stem.split("_")
        if int(take) < 40:
            continue
        try:
            seg = example_segment(*read_wav(SHARED_DATA / r["file"]))
        except ConfigError:
            continue
        (takes[DIGITS[int(digit)]] if DIGITS[int(digit)] in words else others).append(seg)
    return teach_words(takes, others)


def teach_accuracy(digits: Sequence[Take], ks: tuple[int, ...] = (3, 5),
                   distance: float = 1.5) -> list[dict[str, Any]]:
    """Per speaker: teach the ten digits from its first k takes, test on its other takes."""
    from sensekit.audio.sounds import SoundBook, example_segment, features

    feats: dict[str, dict[int, list[np.ndarray | None]]] = {}
    for digit, speaker, x, rate in digits:
        try:
            f: np.ndarray | None = features(example_segment(x, rate))
        except Exception:  # noqa: BLE001 - a take with no sound found counts as missed
            f = None
        feats.setdefault(speaker, {}).setdefault(digit, []).append(f)
    rows: list[dict[str, Any]] = []
    for k in ks:
        for speaker, per in sorted(feats.items()):
            book = SoundBook()
            for digit, fs in per.items():
                book.teach(str(digit), [f for f in fs[:k] if f is not None])
            n = right = accepted_right = false = 0
            for digit, fs in per.items():
                for f in fs[k:]:
                    n += 1
                    if f is None:
                        continue
                    name, d = book.nearest(f)
                    right += name == str(digit)
                    accepted_right += name == str(digit) and d <= distance
                    false += name != str(digit) and d <= distance
            rows.append({"k": k, "speaker": speaker, "tests": n, "nearest": right / n,
                         "accepted_right": accepted_right / n, "accepted_wrong": false / n})
    return rows


def speeds(*, x_dense: np.ndarray, x_sparse: np.ndarray, rate: int, words: tuple[str, ...], repeat: int) -> None:
    """The chain's speed without voice and with each word path, best of ``repeat`` interleaved runs."""
    taught = TAUGHT.pop("taught", None)
    for name, x in (("digit stream (speech ~45 %)", x_dense), ("a command every 5 s", x_sparse)):
        best: dict[str, float] = {}
        for _ in range(repeat):                  # interleaved, best of --repeat: the load moves
            for how in ("without", "dictionary") + (("taught",) if taught is not None else ()):
                if how == "taught" and taught is not None:
                    TAUGHT["taught"] = taught
                speed = chain_speed(x, rate, words, voice=how != "without")
                TAUGHT.pop("taught", None)
                best[how] = max(best.get(how, 0.0), speed)
        print(f"audio chain speed, {name} (best of {repeat}): "
              + ", ".join(f"{v:.0f}x real time {'with voice, ' + k + ' words' if k != 'without' else 'without voice'}"
                          for k, v in best.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--takes", type=int, default=50, help="takes per digit and speaker (50: all)")
    ap.add_argument("--triples", nargs="*", default=["1,5,9", "0,2,7", "3,6,8"])
    ap.add_argument("--fa", type=float, default=0.03, help="false accepts allowed on training speakers")
    ap.add_argument("--skip-loso", action="store_true")
    ap.add_argument("--skip-teach", action="store_true")
    ap.add_argument("--widen", action="store_true", help="voice.widen_band on")
    ap.add_argument("--repeat", type=int, default=1, help="speed: best of this many interleaved runs")
    ap.add_argument("--taught", action="store_true", help="commands heard by a classifier taught from takes 40-49")
    args = ap.parse_args()
    if args.widen:
        STAGE["widen_band"] = True
    digits = load_digits(args.takes)
    print(f"{len(digits)} takes, speakers {sorted({c[1] for c in digits})}")
    if not args.skip_teach:
        print("\ntaught sounds: the ten digits taught by one speaker (first k takes), tested on the "
              "same speaker's other takes")
        print("k  speaker    tests  nearest right  accepted right  accepted wrong")
        for r in teach_accuracy(digits):
            print(f"{r['k']}  {r['speaker']:<10} {r['tests']:5d}  {r['nearest']:13.3f}  {r['accepted_right']:14.3f}"
                  f"  {r['accepted_wrong']:14.3f}")
    if not args.skip_loso:
        print("\nkeyword detection, leave one speaker out (threshold chosen on the other two)")
        print("commands            held out   threshold  recall  false accepts  wrong word")
        allrows = []
        for text in args.triples:
            triple = tuple(int(v) for v in text.split(","))
            for r in loso(digits, triple, args.fa):
                allrows.append(r)
                print(f"{','.join(DIGITS[d] for d in triple):<19} {r['held_out']:<10} {r['threshold']:9.2f}"
                      f"  {r['recall']:6.3f}  {r['false_accepts']:13.3f}  {r['wrong_word']:10d}")
        print(f"mean recall {np.mean([r['recall'] for r in allrows]):.3f}, "
              f"mean false accepts {np.mean([r['false_accepts'] for r in allrows]):.3f}")
    words = tuple(DIGITS[int(v)] for v in args.triples[0].split(","))
    if args.taught:
        TAUGHT["taught"] = taught_words(words)
        print(f"\nwords {','.join(words)} taught from takes 40-49: "
              f"{ {w: n for w, n in TAUGHT['taught'].classifier.takes.items()} }")
    count, seconds, hits = false_accepts_per_hour(words)
    print(f"\nfalse accepts on non-target speech/music ({seconds:.1f} s, words {','.join(words)}): "
          f"{count} = {count / seconds * 3600:.0f} per hour  {hits}")
    lat = latency_and_speed(digits, words)
    print(f"latency word end -> event: median {lat['latency_ms_median']:.0f} ms, "
          f"95th percentile {lat['latency_ms_p95']:.0f} ms ({lat['latency_events']} events "
          f"for {lat['words_said']} words said); of which audio (hangover + block) median "
          f"{lat['audio_ms_median']:.0f} / p95 {lat['audio_ms_p95']:.0f} ms, recognition median "
          f"{lat['compute_ms_median']:.0f} / p95 {lat['compute_ms_p95']:.0f} ms")
    print(f"(load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    rate = digits[0][3]
    dense, _ = stream_of([c[2] for c in digits[:200]], rate)
    sparse, _ = stream_of([c[2] for c in digits[:40]], rate, gap_s=5.0)
    speeds(x_dense=dense, x_sparse=sparse, rate=rate, words=words, repeat=args.repeat)
    print(f"(load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
