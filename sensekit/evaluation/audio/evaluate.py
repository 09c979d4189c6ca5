"""Scoring the clap detector on labelled clips (``../shared/data/audio``), and the book's way.

Scores (printed by ``format_table``; used by ``tests/audio/test_real_clips.py`` and
``benchmarks/audio_eval.py``):

* **per clip**: a clip is predicted "clap" if the detector reports at least one clap;
  clips labelled ``clap`` are positives, every other label a negative -> precision,
  recall, F1. The book's method is scored the same way: ``ActivityDetector(25, 500)``
  (``setSilenceLevel(25, 500)``, the Clapper), a clip is "clap" if any activating event.
* **per clap** on the clips of ``clap_onsets.csv``: a detected clap matches an annotated
  onset within +-``tolerance_s`` (60 ms), each onset at most once (greedy, in time order).
* **per clap, recipe times** on the clap clips without annotated times (continuous
  clapping): against ``recipe_onsets``, the data README's annotation recipe applied by
  code (not checked by hand; reported apart).
* **false claps** on the negative clips, and everything **per source** (``source_of``:
  one recording origin - a person, room and microphone, or one collection).

Clips are read with soundfile and streamed in ``block``-sample blocks (512 by default)
at their own sample rate, exactly as a ``MediaFileSource`` would deliver them, after
``offset`` zero samples (the times are then taken back by the offset).
Cost: ~3 s for the 51 developer clips. Fails with ``SourceError`` if a listed file is
missing or empty.
"""
from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.audio.level import LevelMeter
from sensekit.errors import SourceError

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
    "travisjayday/clap-detector": "tr",
    "xseq/whistle-n-clap": "wnc",
    "Kent-mak/2025-Spring-NYCU-AI-Capstone-Project-1": "km",
}


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

    def add(self, other: Scores) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        if self.tp + self.fp + self.fn == 0:
            return 1.0                       # nothing to find and nothing found
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class ClipResult:
    clip: Clip
    claps: list[float]
    book_activations: list[float]
    recipe: list[float] = field(default_factory=list)   # recipe times (clap clips without times)


@dataclass
class SourceScores:
    clip: Scores = field(default_factory=Scores)
    per_clap: Scores = field(default_factory=Scores)         # annotated clap clips
    recipe: Scores = field(default_factory=Scores)           # clap clips, recipe times
    false_claps: int = 0                                     # claps on negative clips
    negative_clips: int = 0
    negative_clips_hit: int = 0


@dataclass
class Evaluation:
    results: list[ClipResult]
    clip: Scores
    book_clip: Scores
    per_clap: Scores
    book_per_clap: Scores
    block: int
    offset: int = 0
    recipe: Scores = field(default_factory=Scores)
    sources: dict[str, SourceScores] = field(default_factory=dict)


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


def recipe_onsets(x: np.ndarray, rate: int) -> list[float]:
    """Clap times by the data README's recipe (1 kHz high-pass, 1 ms envelope, peaks >= -20 dB
    re the clip's loudest, >= 80 ms apart, >= 12 dB over the quietest of the 40 ms before;
    none in the last 30 ms). Independent of the detector: a reference for the clap clips
    that have no annotated times, and labels for training."""
    from scipy.signal import butter, sosfilt

    y = sosfilt(butter(4, 1000.0, "hp", fs=rate, output="sos"), x.astype(np.float64))
    h = round(rate / 1000.0)
    n = len(y) // h
    e = 10.0 * np.log10((y[: n * h].reshape(n, h) ** 2).mean(axis=1) + 1e-20)
    top = e.max()
    ks = [k for k in range(1, n - 30) if e[k] >= e[k - 1] and e[k] > e[k + 1] and e[k] >= top - 20.0
          and e[k] - e[max(0, k - 40): k].min() >= 12.0]
    chosen: list[int] = []
    for k in sorted(ks, key=lambda k: -e[k]):
        if all(abs(k - c) >= 80 for c in chosen):
            chosen.append(k)
    return sorted((k + 0.5) * h / rate for k in chosen)


def stream_claps(x: np.ndarray, rate: int, *, block: int = 512, offset: int = 0,
                 make: Callable[[], ClapDetector] = ClapDetector) -> list[float]:
    """Clap times of ``x`` streamed after ``offset`` zeros, measured from ``x``'s first sample."""
    if offset:
        x = np.concatenate([np.zeros(offset, np.float32), x])
    det = make()
    out: list[float] = []
    for k, i in enumerate(range(0, len(x), block)):
        out.extend(c.t - offset / rate for c in det.process(x[i:i + block], i / rate, rate, index=k))
    out.extend(c.t - offset / rate for c in det.finish())      # the claps owed at the stream's end
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


def _clip_score(positive: bool, found: bool) -> Scores:
    return Scores(tp=int(positive and found), fp=int(found and not positive),
                  fn=int(positive and not found))


def evaluate(data: Path, *, block: int = 512, offset: int = 0, tolerance_s: float = 0.06,
             make: Callable[[], ClapDetector] = ClapDetector, book: bool = True,
             only_sources: Iterable[str] | None = None) -> Evaluation:
    data = Path(data)
    keep = None if only_sources is None else set(only_sources)
    ev = Evaluation([], Scores(), Scores(), Scores(), Scores(), block, offset)
    for clip in read_clips(data):
        if keep is not None and clip.source not in keep:
            continue
        x, rate = read_wav(data / clip.file)
        claps = stream_claps(x, rate, block=block, offset=offset, make=make)
        acts = stream_book(x, rate, block=block) if book else []
        pos = clip.label == "clap"
        recipe = recipe_onsets(x, rate) if pos and not clip.onsets else []
        ev.results.append(ClipResult(clip, claps, acts, recipe))
        src = ev.sources.setdefault(clip.source, SourceScores())
        cs = _clip_score(pos, bool(claps))
        ev.clip.add(cs)
        src.clip.add(cs)
        ev.book_clip.add(_clip_score(pos, bool(acts)))
        if clip.onsets:
            m = match(claps, clip.onsets, tolerance_s)
            ev.per_clap.add(m)
            src.per_clap.add(m)
            ev.book_per_clap.add(match(acts, clip.onsets, tolerance_s))
        elif pos:
            m = match(claps, recipe, tolerance_s)
            ev.recipe.add(m)
            src.recipe.add(m)
        else:
            src.negative_clips += 1
            src.false_claps += len(claps)
            src.negative_clips_hit += bool(claps)
    return ev


def format_table(ev: Evaluation, *, clips: bool = True) -> str:
    lines = [f"clap detection on {len(ev.results)} developer clips ({ev.block}-sample blocks, "
             f"start offset {ev.offset} samples)", ""]
    if clips:
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
                    ("per clap (+-60 ms), book", ev.book_per_clap),
                    ("per clap vs recipe times, sensekit", ev.recipe)):
        lines.append(f"{name:40s} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f}  "
                     f"({s.tp}/{s.fp}/{s.fn})")
    lines += ["", format_sources(ev.sources)]
    return "\n".join(lines)


def format_sources(sources: dict[str, SourceScores], title: str = "per source") -> str:
    lines = [f"{title:16s} {'clap F1':>8s} {'(tp/fp/fn)':>12s} {'recipe F1':>10s} "
             f"{'clip F1':>8s} {'neg. clips with claps':>22s}"]
    for name in sorted(sources):
        s = sources[name]
        pc = f"{s.per_clap.f1:8.3f} {f'({s.per_clap.tp}/{s.per_clap.fp}/{s.per_clap.fn})':>12s}" \
            if s.per_clap.tp + s.per_clap.fn else f"{'-':>8s} {'':>12s}"
        rc = f"{s.recipe.f1:10.3f}" if s.recipe.tp + s.recipe.fn else f"{'-':>10s}"
        neg = f"{s.negative_clips_hit}/{s.negative_clips} ({s.false_claps} claps)" \
            if s.negative_clips else "-"
        lines.append(f"{name:16s} {pc} {rc} {s.clip.f1:8.3f} {neg:>22s}")
    return "\n".join(lines)
