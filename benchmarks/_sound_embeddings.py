"""The segments of ``benchmarks/_sound_segments.py`` (the same cut, the same order) compared by
fixed-length embeddings: the cosine distance of every pair, for ``benchmarks/sounds_open_set.py``.

- ``cos_stats``: ``sensekit.audio.sound_embedding.embedding`` (60 log-mel statistics up to 4 kHz);
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
from benchmarks._reference import SHARED_DATA
from benchmarks._sound_segments import _clips
from benchmarks.voice_eval import read_wav


def lowpassed(pcm: np.ndarray) -> np.ndarray:
    """16 kHz int16 audio with nothing above 4 kHz (16 -> 8 -> 16 kHz, SciPy's polyphase filter)."""
    from sensekit.audio.polyphase import resample_poly

    y = resample_poly(resample_poly(pcm.astype(np.float64), 1, 2), 2, 1)[:len(pcm)]
    return np.asarray(np.clip(np.round(y), -32768, 32767), np.int16)


def prepare_embeddings(cache: Path | None, data: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """``cos_stats`` and ``cos_speech`` (segments x segments, float32) and the embeddings
    (``emb_stats``, ``emb_speech``); ``data`` (``_sound_segments.prepare``), when given, is checked
    to hold the same segments."""
    from sensekit.audio.sound_embedding import cosine_distances, embedding
    from sensekit.audio.speech_embedding import SpeechEmbedder
    from sensekit.audio.vad import Segment, voiced_segments

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
                stats.append(embedding(s))
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
