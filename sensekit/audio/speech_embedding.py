"""Speech embeddings of a voiced segment: Google's ``speech_embedding`` model, from a wheel.

``SpeechEmbedder(window_s=0.96).embed(segment)`` returns a ``(3, 96)`` float32 array: 96
numbers every 80 ms over a window centred on the segment's voiced part (``sensekit.audio.vad``;
16 kHz int16, padded with silence, or its middle part when longer). Each set of 96 covers
0.76 s, so a window of ``window_s`` gives ``(window_s - 0.76) / 0.08 + 1`` sets: 3 for the
default 0.96 s, 7 for 1.28 s (``embedding_size``; windows of 0.79..4 s: the log-mel front
end needs 0.79 s for one set; a shorter window gave none and failed at the first segment).
The cost grows with the sets; 0.96 s heard the developer digits
as well as 1.28 s for under half the cost (``benchmarks/voice_embed_eval.py --window``, chosen
on all three developer speakers), but keeps only the middle 0.96 s of a longer word. The model is Google's
``speech_embedding`` (Apache-2.0; trained on a large amount of speech to make keyword
spotters from few examples), with its log-mel front end, as two ONNX files inside the
``openwakeword`` 0.4.0 wheel (later releases download them at run time, so the version is
pinned in the ``voice`` extra). They run on ``onnxruntime``; ``openwakeword`` itself is never
imported (its import costs seconds).

What it is for: ``sensekit.audio.word_classifier`` learns command words from recorded takes
of other speakers on top of it. The embedding is not speaker-free, but close enough that a
linear classifier trained on two speakers reads a third (``benchmarks/voice_embed_eval.py``).

Cost: ~8-20 ms per segment at 0.96 s on this loaded machine (load ~8 on 2 cores; 28-50 ms at
1.28 s), loading ~0.1 s.
Failure modes: ``ConfigError`` naming the install when the package or its bundled models are
missing (an ``openwakeword`` newer than 0.4 has none), and for a segment that is not int16.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.audio.vad import RATE, Segment
from sensekit.errors import ConfigError
from sensekit.installed import install_hint

__all__ = ["SpeechEmbedder", "WINDOW_S", "EMBED_INSTALL_HINT", "MIN_WINDOW_S", "MAX_WINDOW_S", "embedding_size"]

EMBED_INSTALL_HINT = ("speech embeddings need the voice extra with its bundled model: "
                      f"{install_hint('voice')} (openwakeword==0.4.0, onnxruntime)")
WINDOW_S = 0.96          # the default window: 3 embeddings of 0.76 s, 80 ms apart
_MEL_WINDOW = 76         # log-mel frames (10 ms) per embedding, as the model was trained
_MEL_STEP = 8
_MEL_HOP = 160           # samples per log-mel frame; the model gives ceil(samples / hop) - 3 frames
MIN_WINDOW_S, MAX_WINDOW_S = 0.79, 4.0    # below 0.79 s the model gives no set (0.76-0.78 s crashed)


def embedding_size(window_s: float) -> int:
    """How many numbers ``SpeechEmbedder(window_s=window_s).embed`` gives (``(n, 96)`` flattened),
    without loading the model: what a taught-words table's weight rows must hold."""
    if not MIN_WINDOW_S <= window_s <= MAX_WINDOW_S:
        raise ConfigError(f"the embedding window must be {MIN_WINDOW_S:g}..{MAX_WINDOW_S:g} s, got {window_s!r}")
    mel = -(-int(round(window_s * RATE)) // _MEL_HOP) - 3
    return (len(range(0, mel - _MEL_WINDOW + 1, _MEL_STEP))) * 96


def _models_dir() -> Path:
    """The folder of ONNX files inside the installed ``openwakeword`` (found without importing it)."""
    spec = importlib.util.find_spec("openwakeword")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(EMBED_INSTALL_HINT)
    found = Path(next(iter(spec.submodule_search_locations))) / "resources" / "models"
    if not (found / "embedding_model.onnx").is_file() or not (found / "melspectrogram.onnx").is_file():
        raise ConfigError(f"no bundled speech_embedding model in {found}; {EMBED_INSTALL_HINT}")
    return found


class SpeechEmbedder:
    """Google's speech_embedding over a voiced segment (see the module docstring)."""

    def __init__(self, *, window_s: float = WINDOW_S) -> None:
        embedding_size(window_s)                 # the window's range, checked
        self.window_s = float(window_s)
        models = _models_dir()
        try:
            import onnxruntime as ort
        except ImportError:
            raise ConfigError(EMBED_INSTALL_HINT) from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1          # one core: the chain shares the machine
        opts.inter_op_num_threads = 1
        cpu = ["CPUExecutionProvider"]
        self._mel: Any = ort.InferenceSession(str(models / "melspectrogram.onnx"), sess_options=opts, providers=cpu)
        self._emb: Any = ort.InferenceSession(str(models / "embedding_model.onnx"), sess_options=opts, providers=cpu)

    def window(self, segment: Segment) -> np.ndarray:
        """The segment's voiced part centred in ``window_s`` of int16 audio (silence around it)."""
        pcm = segment.pcm
        if pcm.dtype != np.int16:
            raise ConfigError(f"a voice segment must be int16 at {RATE} Hz, got {pcm.dtype}")
        size = int(round(self.window_s * RATE))
        a = max(0, int(round((segment.start - segment.t0) * RATE)))
        b = min(len(pcm), int(round((segment.end - segment.t0) * RATE)))
        voiced = pcm[a:b] if b - a >= 400 else pcm
        if len(voiced) > size:
            cut = (len(voiced) - size) // 2
            return np.ascontiguousarray(voiced[cut:cut + size])
        out = np.zeros(size, np.int16)
        at = (size - len(voiced)) // 2
        out[at:at + len(voiced)] = voiced
        return out

    def embed(self, segment: Segment) -> np.ndarray:
        """``(n, 96)`` float32 embeddings of the segment's window (``n`` = 3 at 0.96 s)."""
        x = self.window(segment).astype(np.float32)[None, :]
        mel = np.squeeze(self._mel.run(None, {"input": x})[0]) / 10.0 + 2.0   # the model's own scaling
        starts = range(0, mel.shape[0] - _MEL_WINDOW + 1, _MEL_STEP)
        batch = np.stack([mel[i:i + _MEL_WINDOW] for i in starts])[..., None].astype(np.float32)
        out: np.ndarray = self._emb.run(None, {"input_1": batch})[0].reshape(len(batch), -1)
        return out.astype(np.float32)
