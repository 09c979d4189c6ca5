"""Scoring the clap detector on labelled clips (``../shared/data/audio``), and the book's way.

Two scores, both printed by ``format_table`` (used by ``tests/audio/test_real_clips.py``
and ``benchmarks/audio_eval.py``):

* **per clip**: a clip is predicted "clap" if the detector reports at least one clap;
  clips labelled ``clap`` are positives, every other label a negative -> precision,
  recall, F1. The book's method is scored the same way: ``ActivityDetector(25, 500)``
  (``setSilenceLevel(25, 500)``, the Clapper), a clip is "clap" if any activating event.
* **per clap** on the clips of ``clap_onsets.csv``: a detected clap matches an annotated
  onset within +-``tolerance_s`` (60 ms), each onset at most once (greedy, in time order).

Clips are read with soundfile and streamed in ``block``-sample blocks (512 by default)
at their own sample rate, exactly as a ``MediaFileSource`` would deliver them.
Cost: ~1-2 s for the 33 developer clips. Fails with ``SourceError`` if a listed file is
missing or empty.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.audio.level import LevelMeter
from sensekit.errors import SourceError


@dataclass
class Clip:
    file: str               # relative to the data folder, e.g. "audio/clap_x.wav"
    label: str
    onsets: list[float] = field(default_factory=list)
    source: str = ""        # the recording origin (``source_of``)


@dataclass
class Scores:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class ClipResult:
    clip: Clip
    claps: list[float]
    book_activations: list[float]


@dataclass
class Evaluation:
    results: list[ClipResult]
    clip: Scores
    book_clip: Scores
    per_clap: Scores
    book_per_clap: Scores
    block: int


#: ``source_repo`` of labels.csv -> source name; one source = one recording origin
#: (a person, a room and a microphone, or one collection). LCAV/pyroomacoustics ships two
#: unrelated collections, told apart by file name: CMU ARCTIC speech and Google Speech
#: Commands background noise.
SOURCE_NAMES = {
    "Sharwin24/Machine-Learning-and-Sensing": "sharwin",
    "EldarKusdavletov/Clap-Detector": "eldar",
    "kathmo/js30": "js30",
    "karthickraja2349/AI-ClapDetector": "k",
    "JackFHession/ai_clap_detection": "j",
    "IBM/MAX-Audio-Classifier": "ibm",
    "Jakobovski/free-spoken-digit-dataset": "fsdd",
    "iver56/audiomentations": "audiomentations",
    "hsbakshi/ambient-engine": "usc",
}


def source_of(file: str, source_repo: str) -> str:
    """The source (recording origin) of a clip: see ``SOURCE_NAMES``."""
    if source_repo == "LCAV/pyroomacoustics":
        return "arctic" if "arctic" in file else "gsc"
    return SOURCE_NAMES.get(source_repo, source_repo.split("/")[-1].lower() or "unknown")


def read_clips(data: Path) -> list[Clip]:
    """The audio clips of ``labels.csv`` with their annotated onsets."""
    data = Path(data)
    onsets: dict[str, list[float]] = {}
    with open(data / "audio" / "clap_onsets.csv", newline="") as f:
        for row in csv.DictReader(f):
            onsets.setdefault(row["file"], []).append(float(row["onset_s"]))
    clips = []
    with open(data / "labels.csv", newline="") as f:
        for row in csv.DictReader(f):
            name = row["file"]
            if name.startswith("audio/") and name.endswith(".wav"):
                clips.append(Clip(name, row["label"], sorted(onsets.get(name, [])),
                                  source_of(name, row.get("source_repo", ""))))
    return clips


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Mono float32 samples and the rate of an audio file (``SourceError`` if empty)."""
    import soundfile as sf

    if not Path(path).is_file():
        raise SourceError(f"audio file not found: '{path}'")
    x, rate = sf.read(str(path), dtype="float32", always_2d=True)
    if len(x) == 0:
        raise SourceError(f"audio file '{path}' is empty (0 samples)")
    return np.ascontiguousarray(x.mean(axis=1, dtype=np.float32)), int(rate)


def stream_claps(x: np.ndarray, rate: int, *, block: int = 512,
                 make: Callable[[], ClapDetector] = ClapDetector) -> list[float]:
    det = make()
    out: list[float] = []
    for k, i in enumerate(range(0, len(x), block)):
        out.extend(c.t for c in det.process(x[i:i + block], i / rate, rate, index=k))
    return out


def stream_book(x: np.ndarray, rate: int, *, block: int = 512, level: float = 25.0,
                timeout_ms: float = 500.0) -> list[float]:
    """Times of the activating events of the book's Clapper (``setSilenceLevel``)."""
    meter = LevelMeter()
    det = ActivityDetector(level, timeout_ms)
    out = []
    for k, i in enumerate(range(0, len(x), block)):
        lv = meter.process(x[i:i + block], i / rate, rate, index=k)
        if lv is None:
            continue
        ev = det.process(lv, i / rate)
        if ev is not None and ev.activating:
            out.append(ev.t)
    return out


def match(detected: Iterable[float], truth: Iterable[float], tolerance_s: float = 0.06) -> Scores:
    """Greedy one-to-one matching of detections to annotated times."""
    det = sorted(detected)
    used = [False] * len(det)
    s = Scores()
    for t in sorted(truth):
        best = None
        for i, d in enumerate(det):
            if not used[i] and abs(d - t) <= tolerance_s and (best is None or abs(d - t) < abs(det[best] - t)):
                best = i
        if best is None:
            s.fn += 1
        else:
            used[best] = True
            s.tp += 1
    s.fp = used.count(False)
    return s


def evaluate(data: Path, *, block: int = 512, tolerance_s: float = 0.06,
             make: Callable[[], ClapDetector] = ClapDetector) -> Evaluation:
    data = Path(data)
    results = []
    clip_s, book_s, clap_s, book_clap_s = Scores(), Scores(), Scores(), Scores()
    for clip in read_clips(data):
        x, rate = read_wav(data / clip.file)
        claps = stream_claps(x, rate, block=block, make=make)
        book = stream_book(x, rate, block=block)
        results.append(ClipResult(clip, claps, book))
        pos = clip.label == "clap"
        for s, found in ((clip_s, bool(claps)), (book_s, bool(book))):
            if pos and found:
                s.tp += 1
            elif pos:
                s.fn += 1
            elif found:
                s.fp += 1
        if clip.onsets:
            for s, det in ((clap_s, claps), (book_clap_s, book)):
                m = match(det, clip.onsets, tolerance_s)
                s.tp += m.tp
                s.fp += m.fp
                s.fn += m.fn
    return Evaluation(results, clip_s, book_s, clap_s, book_clap_s, block)


def format_table(ev: Evaluation) -> str:
    lines = [f"clap detection on {len(ev.results)} developer clips ({ev.block}-sample blocks)", ""]
    lines.append(f"{'clip':40s} {'label':16s} {'sensekit':>9s} {'book':>6s}")
    for r in ev.results:
        name = r.clip.file.split("/", 1)[-1]
        lines.append(f"{name[:40]:40s} {r.clip.label[:16]:16s} {len(r.claps):9d} "
                     f"{len(r.book_activations):6d}")
    lines.append("")
    lines.append(f"{'score':40s} {'P':>6s} {'R':>6s} {'F1':>6s}  (tp/fp/fn)")
    for name, s in (("per clip, sensekit ClapDetector", ev.clip),
                    ("per clip, book ActivityDetector(25,500)", ev.book_clip),
                    ("per clap (+-60 ms), sensekit", ev.per_clap),
                    ("per clap (+-60 ms), book", ev.book_per_clap)):
        lines.append(f"{name:40s} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f}  "
                     f"({s.tp}/{s.fp}/{s.fn})")
    return "\n".join(lines)
