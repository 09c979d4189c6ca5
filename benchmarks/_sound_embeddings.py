"""The segments of ``benchmarks/_sound_segments.py`` (the same cut, the same order) compared by
fixed-length embeddings: the cosine distance of every pair, for ``benchmarks/sounds_open_set.py``.

- ``cos_stats``: ``stats_embedding``, 60 log-mel statistics up to 4 kHz: the log energies of 20
  mel bands (25 ms windows every 10 ms, as ``sensekit.audio.sounds.features``) of the voiced part,
  per band the mean over the sound less the mean of all bands (the spectrum's shape; the level
  does not count), the standard deviation over the sound, and the mean size of the change from
  one frame to the next. Unlike the MFCC templates, whose mean is removed, the spectrum's shape
  is kept;
- ``cos_speech``: Google's speech embedding (``SpeechEmbedder``, 0.96 s, 288 numbers) of the
  segment low-passed at 4 kHz first (16 -> 8 -> 16 kHz), so the 8 kHz digits and the 44.1/48 kHz
  clips look alike as they do to the MFCCs.

    python benchmarks/_sound_embeddings.py CACHE.npz   (~1-2 min)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _reference import SHARED_DATA
from _sound_segments import _clips
from voice_eval import read_wav
from sensekit.audio.vad import RATE, Segment


N_BANDS = 20


def stats_embedding(segment: Segment) -> np.ndarray:
    """The 60 log-mel statistics of the voiced part of ``segment`` (see the module docstring)."""
    from python_speech_features import logfbank

    a = max(0, int(round((segment.start - segment.t0) * RATE)))
    b = min(len(segment.pcm), int(round((segment.end - segment.t0) * RATE)))
    x = segment.pcm[a:b].astype(np.float64)
    if len(x) < 400:                             # as sounds.features cuts it
        x = segment.pcm.astype(np.float64)
    m = logfbank(x, samplerate=RATE, winlen=0.025, winstep=0.01, nfilt=N_BANDS, nfft=512, lowfreq=0, highfreq=4000)
    mean = m.mean(axis=0)
    delta = np.abs(np.diff(m, axis=0)).mean(axis=0) if len(m) > 1 else np.zeros(N_BANDS)
    return np.concatenate([mean - mean.mean(), m.std(axis=0), delta]).astype(np.float32)


def cosine_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - cos`` between each row of ``a`` and each row of ``b``."""
    def unit(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float64).reshape(len(x), -1)
        return np.asarray(x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12))
    return np.asarray(np.clip(1.0 - unit(a) @ unit(b).T, 0.0, 2.0))


def lowpassed(pcm: np.ndarray) -> np.ndarray:
    """16 kHz int16 audio with nothing above 4 kHz (16 -> 8 -> 16 kHz, SciPy's polyphase filter)."""
    from sensekit.audio.polyphase import resample_poly

    y = resample_poly(resample_poly(pcm.astype(np.float64), 1, 2), 2, 1)[:len(pcm)]
    return np.asarray(np.clip(np.round(y), -32768, 32767), np.int16)


def prepare_embeddings(cache: Path | None, data: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """``cos_stats`` and ``cos_speech`` (segments x segments, float32) and the embeddings
    (``emb_stats``, ``emb_speech``); ``data`` (``_sound_segments.prepare``), when given, is checked
    to hold the same segments."""
    from sensekit.audio.speech_embedding import SpeechEmbedder
    from sensekit.audio.vad import voiced_segments

    if cache is not None and cache.exists():
        with np.load(cache) as z:
            out = {k: z[k] for k in z.files}
    else:
        embedder = SpeechEmbedder()
        stats, speech, spans = [], [], []
        for name, _kind, _source in _clips():
            x, rate = read_wav(SHARED_DATA / name)
            for s in voiced_segments(x, rate, what=name):
                spans.append((s.start, s.end))
                stats.append(stats_embedding(s))
                low = Segment(s.start, s.end, lowpassed(s.pcm), s.t0)
                speech.append(embedder.embed(low).reshape(-1))
        es, ep = np.stack(stats), np.stack(speech)
        out = {"emb_stats": es, "emb_speech": ep, "spans": np.array(spans),
               "cos_stats": cosine_distances(es, es).astype(np.float32),
               "cos_speech": cosine_distances(ep, ep).astype(np.float32)}
        for k in ("cos_stats", "cos_speech"):
            np.fill_diagonal(out[k], 0.0)
        if cache is not None:
            np.savez(cache, **out)
    if data is not None and (len(out["spans"]) != len(data["start"]) or not (
            np.allclose(out["spans"][:, 0], data["start"]) and np.allclose(out["spans"][:, 1], data["end"]))):
        raise SystemExit("the embeddings cache holds other segments than the DTW cache: delete one")
    return out


if __name__ == "__main__":
    prepare_embeddings(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
