"""The clap detector under noise: recall and false claps per minute against SNR, per noise kind.

Every clip of ``clap_onsets.csv`` (annotated claps) is mixed with noise of each kind
(``clap_augment.noise``: white, pink, brown, hum, babble, and ``speech``, one speech
recording of another source) at each SNR - the claps' loudest 5 ms RMS (the clip's median,
``clap_loudness.clap_loudness``) over the noise RMS - and streamed at each start offset.
A detected clap within 60 ms of an annotated one finds it (``evaluate.match``); every
other detected clap is a false one, counted per minute of the noisy clips.

The noise of a clip and kind comes from one seed (``seed_of("curve", clip, kind)``,
never used in training), so the SNRs of a kind differ only in the noise's scale. Babble
and speech come from sources other than the clip's. ``make_for(source)`` gives the
detector a clip is scored with: for a leave-one-source-out curve, one whose constants
never saw that source.

Cost: one streaming pass per clip, kind, SNR and offset (71 s of clips; ~1-2 s per
kind and SNR at one offset).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_loudness import clap_loudness
from sensekit.evaluation.audio.clap_augment import noise
from sensekit.evaluation.audio.evaluate import Clip, match, read_clips, read_wav, stream_claps

CURVE_KINDS = ("white", "pink", "brown", "hum", "babble", "speech")
CURVE_SNRS_DB = (0.0, 5.0, 10.0, 15.0, 20.0, 30.0)


@dataclass
class CurvePoint:
    kind: str
    snr_db: float
    offset: int
    tp: int = 0
    fn: int = 0
    fp: int = 0
    seconds: float = 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def false_per_min(self) -> float:
        return 60.0 * self.fp / self.seconds if self.seconds else 0.0


def _seed(*parts: str) -> int:
    import zlib

    return zlib.crc32("/".join(parts).encode())


def other_speech(audio: dict[str, tuple[np.ndarray, int]], speech: Iterable[Clip], source: str,
                 rate: int) -> list[np.ndarray]:
    """The speech clips of every source but ``source``, at ``rate`` (what babble and the
    speech mixes are made of: a held-out source is never mixed with its own voice)."""
    from sensekit.evaluation.audio.clap_training import resample

    out = []
    for sp in speech:
        if sp.source != source:
            sx, srate = audio[sp.file]
            out.append(sx if srate == rate else resample(sx, srate, rate))
    return out


def speech_pick(clip_file: str, n_others: int) -> int:
    """Which of ``n_others`` speech clips (``other_speech``'s order) the ``speech`` mix of
    ``clip_file`` uses (the first draw of its seed, as ``noise_unit`` draws it)."""
    return int(np.random.default_rng(_seed("curve", clip_file, "speech")).integers(n_others))


def noise_unit(kind: str, clip_file: str, n: int, rate: int, others: list[np.ndarray]) -> np.ndarray:
    """``n`` samples of noise ``kind`` at unit RMS, seeded by the clip and the kind (the same
    mix in every run); ``"speech"`` is one of ``others`` looped."""
    rng = np.random.default_rng(_seed("curve", clip_file, kind))
    if kind == "speech":
        one = others[speech_pick(clip_file, len(others))].astype(np.float64)
        loop = np.tile(one, -(-n // len(one)))[:n]
        out: np.ndarray = loop / (np.sqrt(np.mean(loop ** 2)) + 1e-20)
        return out
    return noise(kind, n, rate, rng, others)


def mix_at(x: np.ndarray, unit: np.ndarray, loud: float, snr_db: float) -> np.ndarray:
    """``x`` plus ``unit`` noise ``snr_db`` under the claps' loudness ``loud``, as float32,
    scaled down only if it would clip (peak above 0.95)."""
    y = x.astype(np.float64) + unit * loud * 10.0 ** (-snr_db / 20.0)
    peak = float(np.abs(y).max())
    return np.asarray(y * (0.95 / peak) if peak > 0.95 else y, np.float32)


def noise_curve(data: Path, *, kinds: Iterable[str] = CURVE_KINDS,
                snrs_db: Iterable[float] = CURVE_SNRS_DB, offsets: Iterable[int] = (0,),
                block: int = 512, make_for: Callable[[str], Callable[[], ClapDetector]] | None = None,
                only_sources: Iterable[str] | None = None) -> list[CurvePoint]:
    """One ``CurvePoint`` per kind, SNR and offset (see the module docstring)."""
    data = Path(data)
    clips = read_clips(data)
    keep = None if only_sources is None else set(only_sources)
    targets = [c for c in clips if c.onsets and (keep is None or c.source in keep)]
    speech = [c for c in clips if c.label == "speech"]
    audio = {c.file: read_wav(data / c.file) for c in targets + speech}
    snrs = list(snrs_db)
    offs = list(offsets)
    points = {(k, s, o): CurvePoint(k, s, o) for k in kinds for s in snrs for o in offs}
    for c in targets:
        x, rate = audio[c.file]
        loud = clap_loudness(x, rate, c.onsets)
        others = other_speech(audio, speech, c.source, rate)
        make = make_for(c.source) if make_for is not None else ClapDetector
        for kind in {k for k, _, _ in points}:
            unit = noise_unit(kind, c.file, len(x), rate, others)
            for snr in snrs:
                y32 = mix_at(x, unit, loud, snr)
                for off in offs:
                    m = match(stream_claps(y32, rate, block=block, offset=off, make=make), c.onsets)
                    p = points[kind, snr, off]
                    p.tp += m.tp
                    p.fn += m.fn
                    p.fp += m.fp
                    p.seconds += len(x) / rate
    return list(points.values())


def format_curve(points: list[CurvePoint]) -> str:
    """Recall and false claps per minute by kind (rows) and SNR (columns), the worst
    offset of each cell (lowest recall, most false claps)."""
    kinds = list(dict.fromkeys(p.kind for p in points))
    snrs = sorted({p.snr_db for p in points})
    head = f"{'noise':8s} " + " ".join(f"{f'{s:g} dB':>13s}" for s in snrs)
    lines = ["recall / false claps per minute (worst start offset)", head]
    for k in kinds:
        cells = []
        for s in snrs:
            ps = [p for p in points if p.kind == k and p.snr_db == s]
            cells.append(f"{min(p.recall for p in ps):6.2f} /{max(p.false_per_min for p in ps):5.1f}")
        lines.append(f"{k:8s} " + " ".join(f"{c:>13s}" for c in cells))
    return "\n".join(lines)


def curve_json(points: list[CurvePoint], mode: str) -> dict[str, object]:
    """The curve as plain data (``benchmarks/plot_claps.py`` draws it)."""
    return {"mode": mode, "points": [
        {"kind": p.kind, "snr_db": p.snr_db, "offset": p.offset, "tp": p.tp, "fn": p.fn,
         "fp": p.fp, "seconds": round(p.seconds, 3), "recall": round(p.recall, 4),
         "false_per_min": round(p.false_per_min, 3)} for p in points]}
