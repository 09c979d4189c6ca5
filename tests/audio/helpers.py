"""Hand-made signals shared by the audio tests (deterministic, tiny)."""
from __future__ import annotations

import importlib.util
from typing import Any, Iterator

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock


def blocks_of(x: np.ndarray, rate: int, block: int = 512) -> Iterator[AudioBlock]:
    for k, i in enumerate(range(0, len(x), block)):
        yield AudioBlock(k, i / rate, x[i:i + block], rate)


def noise_floor(seconds: float, rate: int, dbfs: float = -70.0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.normal(0.0, 10 ** (dbfs / 20), int(seconds * rate))).astype(np.float32)


def clap_burst(rate: int, *, peak: float = 0.5, length_ms: float = 12.0, decay_ms: float = 2.5,
               seed: int = 1) -> np.ndarray:
    """A synthetic clap: broadband noise with an instant attack and a fast exponential decay."""
    rng = np.random.default_rng(seed)
    n = int(rate * length_ms / 1000)
    env = np.exp(-np.arange(n) / (rate * decay_ms / 1000))
    return (peak * env * rng.uniform(-1, 1, n)).astype(np.float32)


def burst_in_silence(rate: int = 48000, seconds: float = 1.0, at: float = 0.5, amp: float = 0.5) -> np.ndarray:
    """``seconds`` of digital silence with 10 ms of uniform noise (peak ``amp``) from ``at`` s."""
    x = np.zeros(round(seconds * rate), np.float32)
    i = round(at * rate)
    x[i: i + rate // 100] = amp * np.random.default_rng(0).uniform(-1, 1, rate // 100)
    return x


def add_at(x: np.ndarray, burst: np.ndarray, t: float, rate: int) -> None:
    i = int(round(t * rate))
    x[i:i + len(burst)] += burst[: len(x) - i]


def tone(seconds: float, rate: int, hz: float, amp: float = 0.3,
         harmonics: tuple[float, ...] = (1.0,)) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    out = np.zeros_like(t)
    for k, a in enumerate(harmonics, start=1):
        out += a * np.sin(2 * np.pi * hz * k * t + 0.3 * k)
    return (amp * out / sum(harmonics)).astype(np.float32)


#: the spoken digits of ../shared/data/words the taught-word tests teach as commands
COMMANDS = {1: "one", 5: "five", 9: "nine"}


def skip_without_taught_words() -> None:
    """Skip the calling test module (at its import) unless the voice extra's parts for taught
    words are installed: the embedding (onnxruntime, openwakeword's model), the fit (sklearn),
    the cut (soxr, webrtcvad)."""
    for module in ("onnxruntime", "sklearn", "soxr", "webrtcvad"):
        pytest.importorskip(module)
    if importlib.util.find_spec("openwakeword") is None:
        pytest.skip("openwakeword (the voice extra) is not installed", allow_module_level=True)


def stream_claps(det: Any, x: np.ndarray, rate: int, *, block: int = 512, offset: int = 0) -> list[float]:
    """The clap times ``det`` (a clap detector) gives for ``x`` fed in ``block``-sample blocks after
    ``offset`` samples of silence (times measured from ``x``'s start)."""
    if offset:
        x = np.concatenate([np.zeros(offset, np.float32), x])
    out: list[float] = []
    for k, i in enumerate(range(0, len(x), block)):
        out += [c.t - offset / rate for c in det.process(x[i:i + block], i / rate, rate, index=k)]
    return out


def two_source_bursts() -> tuple[Any, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Two sources, one clap clip each (3 claps), on the recording and one noisy copy, with the
    trees' score and a second score (the ring's trees', a net's) of each burst. Source a: a false
    clap at trees 0.5 that the second score rejects (-6), and a clap at trees 1.5 it also rejects;
    source b: a missed clap at trees -2.5 that the second score finds (+8)."""
    from sensekit.evaluation.audio.clap_training import Bursts

    rows = []   # source, variant, clip, y, trees, second
    for v in ("orig", "n_babble"):
        rows += [("a", v, "a.wav", 1, 4.0, 4.0), ("a", v, "a.wav", 1, 1.5, -6.0),
                 ("a", v, "a.wav", 1, 4.0, 4.0), ("a", v, "a.wav", 0, 0.5, -6.0)]
        rows += [("b", v, "b.wav", 1, 4.0, 4.0), ("b", v, "b.wav", 1, -2.5, 8.0),
                 ("b", v, "b.wav", 1, 4.0, 4.0), ("b", v, "b.wav", 0, -5.0, 9.0)]
    col = list(zip(*rows))
    b = Bursts(np.zeros((len(rows), 16)), np.array(col[3]), np.array(col[0]), np.array([""] * len(rows)),
               np.array(col[1]), np.array(col[2]), {"a.wav": 3, "b.wav": 3}, {"a.wav": "clap", "b.wav": "clap"})
    src = np.array(col[0])
    trees = {s: np.where(src == s, np.array(col[4], float), np.nan) for s in ("a", "b")}
    second = {s: np.where(src == s, np.array(col[5], float), np.nan) for s in ("a", "b")}
    return b, trees, second


def clapper_claps(path: Any, threshold: float | None = None) -> list[float]:
    """The claps the clapper app hears replaying the WAV at ``path`` headless to its end; with
    ``threshold``, its clap detector is set to it (``apply_now``) before the first block."""
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load
    from sensekit.audio.pipeline import AudioStage
    from sensekit.capture.spec import open_source

    source = open_source(f"file:{path}")
    source.open()
    try:
        host = AppHost(load("clapper"), source, RunOptions(headless=True, hud=False))
        if threshold is not None:
            stage = next(s for s in host.runner.stages if isinstance(s, AudioStage))
            assert stage.clap is not None
            stage.clap.apply_now(threshold=threshold)
        for _ in range(30 * 60):
            if host.runner.ended:
                break
            host.step()
        host.close()
        assert host.runner.ended
        return list(host.app.claps)
    finally:
        source.close()
