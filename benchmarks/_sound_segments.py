"""Every voiced segment of the real clips, cut as teaching cuts a file, and the DTW distance
between each pair: the data of ``benchmarks/sounds_open_set.py``.

A segment's kind is the clip's label in ``../shared/data/labels.csv`` (``digitN`` for the spoken
digits of ``../shared/data/words``, the first ``TAKES`` takes of each) and its source the source
repository (the speaker for digits). ``--transients`` cuts as taught sounds do since voice24
(onsets open segments too). ``--cache`` keeps the matrix (~5 min to compute on one core).
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _reference import SHARED_DATA
from voice_eval import read_wav

TAKES = 20           # takes of each digit and speaker


def _clips() -> list[tuple[str, str, str]]:
    """(file, kind, source) of every clip."""
    out = []
    with open(SHARED_DATA / "labels.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["media"] == "audio" and r["file"].endswith(".wav"):
                out.append((r["file"], r["label"], r["source_repo"]))
    with open(SHARED_DATA / "words" / "labels.csv", newline="") as f:
        for r in csv.DictReader(f):
            digit, speaker, take = Path(r["file"]).stem.split("_")
            if int(take) < TAKES:
                out.append((r["file"], "digit" + digit, speaker))
    return out


def dtw_many(a: np.ndarray, flat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``sounds.dtw_distance(a, b)`` for every ``b`` of the segments whose frames, one after
    another, are ``flat`` (``lengths`` frames each): the same recursion run on all of them at once,
    the running sums and minima restarted at each segment's first frame (float64)."""
    seg = np.repeat(np.arange(len(lengths)), lengths)
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    last = first + lengths - 1
    big = 1e7 * seg                             # later segments lie far below: no minimum crosses back

    def cumsum(x: np.ndarray) -> np.ndarray:
        c = np.cumsum(x)
        return np.asarray(c - (c[first] - x[first])[seg])

    a64, f64 = a.astype(np.float64), flat.astype(np.float64)
    cost = np.sqrt(np.maximum((a64 ** 2).sum(1)[:, None] + (f64 ** 2).sum(1)[None, :] - 2 * a64 @ f64.T, 0.0))
    prev = cumsum(cost[0])
    for c in cost[1:]:
        diag = np.concatenate([[np.inf], prev[:-1]])
        diag[first] = np.inf
        best_in = np.minimum(prev, diag) + c
        s = cumsum(c)
        prev = s + np.minimum.accumulate(best_in - s - big) + big
    return np.asarray(prev[last] / (len(a) + lengths))


def prepare(cache: Path | None, *, transients: bool = False) -> dict[str, np.ndarray]:
    """Per segment: ``clip``, ``kind``, ``source``, ``start``, ``end``, ``frames`` (its template's
    length, 10 ms frames), ``transient`` (opened on an onset, ``transients``: the cut of taught
    sounds since voice24); per clip kind the seconds
    played (``kinds``, ``seconds``); ``dist``, the DTW distance of every pair of segments."""
    from sensekit.audio.sounds import dtw_distance, features
    from sensekit.audio.vad import voiced_segments

    if cache is not None and cache.exists():
        with np.load(cache) as z:
            return {k: z[k] for k in z.files}
    meta: list[tuple[str, str, str, float, float, bool]] = []
    feats: list[np.ndarray] = []
    seconds: dict[str, float] = {}
    for name, kind, source in _clips():
        x, rate = read_wav(SHARED_DATA / name)
        seconds[kind] = seconds.get(kind, 0.0) + len(x) / rate
        for s in voiced_segments(x, rate, what=name, transients=transients):
            meta.append((name, kind, source, s.start, s.end, s.transient))
            feats.append(features(s))
    lengths = np.array([len(m) for m in feats])
    flat = np.concatenate(feats)
    dist = np.stack([dtw_many(m, flat, lengths) for m in feats]).astype(np.float32)
    dist = np.minimum(dist, dist.T)          # the same up to rounding; exactly symmetric
    assert abs(dist[0, 1] - dtw_distance(feats[0], feats[1])) < 1e-3 * max(1.0, dist[0, 1])
    data = {"clip": np.array([m[0] for m in meta]), "kind": np.array([m[1] for m in meta]),
            "source": np.array([m[2] for m in meta]), "start": np.array([m[3] for m in meta]),
            "end": np.array([m[4] for m in meta]), "transient": np.array([m[5] for m in meta]),
            "frames": np.array([len(m) for m in feats]), "dist": dist,
            "kinds": np.array(list(seconds)), "seconds": np.array(list(seconds.values()))}
    if cache is not None:
        arrays: dict[str, Any] = data
        np.savez(cache, **arrays)
    return data


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--transients"]
    prepare(Path(args[0]) if args else None, transients="--transients" in sys.argv[1:])
