"""Cheaper runs of MobileSAM's image encoder, the same weights (``encoder_variants_eval.py``, branch ``click26``).

The question, declared before any figure: how cheap can the encoder get while the first box stays
as good, and what does a user get at that delay? Declared variants, each at 1024 and 768 px
(``_point_prompt.MobileSam(side=S)``), the prompt encoder and the mask decoder torch fp32 in all:

- ``torch-fp32``: the encoder as ``click24`` / ``click25`` ran it (the control);
- ``torch-int8``: ``torch.ao.quantization.quantize_dynamic`` of the encoder's ``nn.Linear`` layers
  (weights int8, activations quantised on the fly; the convolutions stay fp32);
- ``ort-fp32``: the encoder exported once with ``torch.onnx.export`` and run by ONNX Runtime (CPU,
  every graph optimisation);
- ``ort-int8``: that ONNX file through ``onnxruntime.quantization.quantize_dynamic`` (int8 weights
  of its MatMul / Gemm layers), run the same way.

``VariantSam`` is ``MobileSam`` with its ``sam.image_encoder`` replaced by the variant; the ONNX
files are written once per side under ``work``. ``cheapest_keeping`` is the declared choice of the
variant to track with and ``delay_frames`` the frames its answer takes at 30 fps.
"""
from __future__ import annotations

import copy
import importlib
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from _point_prompt import SIDE, MobileSam, _forward_features

#: the declared variants, in the order they are printed
VARIANTS = ("torch-fp32", "torch-int8", "ort-fp32", "ort-int8")
#: the control every ratio and quality difference is taken against
CONTROL = "torch-fp32"
#: where the ONNX files are written once unless told (``--work``, ``--point-prompt-work``)
WORK = Path(tempfile.gettempdir()) / "sensekit-mobilesam-onnx"


def check_variant(name: str) -> str:
    """``name`` if it is a declared variant, else ValueError naming the choices."""
    if name not in VARIANTS:
        raise ValueError(f"unknown encoder variant {name!r}: choose from {', '.join(VARIANTS)}")
    return name


def delay_frames(ms: float, fps: float = 30.0) -> int:
    """The frames a click's answer arrives after at ``fps`` when it takes ``ms`` (at least 1)."""
    if not np.isfinite(ms) or ms < 0 or fps <= 0:
        raise ValueError(f"a cost must be a finite non-negative ms at a positive fps, got {ms} ms at {fps} fps")
    return max(1, int(round(ms * fps / 1000.0)))


def cheapest_keeping(cost_ms: Mapping[str, float], size_ok: Mapping[str, float], control: str,
                     tol: float = 0.03) -> str | None:
    """The cheapest variant whose size ok is within ``tol`` of ``control``'s (``control`` itself
    counts); None when no variant has both a cost and a size ok. Ties go to the first given."""
    if control not in size_ok:
        raise ValueError(f"the control {control!r} has no size ok")
    keep = [v for v in cost_ms if v in size_ok and size_ok[v] >= size_ok[control] - tol - 1e-12]
    return min(keep, key=lambda v: cost_ms[v]) if keep else None


def dir_bytes(paths: list[Path]) -> int:
    """Bytes of every file under ``paths`` (an installed route's size); a missing path is an error."""
    total = 0
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"{p} does not exist")
        files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file() and not f.is_symlink()]
        total += sum(f.stat().st_size for f in files)
    return total


def _ort_module(torch: Any, path: Path, threads: int, side: int) -> Any:
    """An ``nn.Module`` running the ONNX encoder at ``path`` (``set_threads`` rebuilds its session)."""
    ort = importlib.import_module("onnxruntime")

    class OrtEncoder(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.path, self.img_size = path, side     # SAM's preprocess pads to img_size
            self.neck = torch.nn.Sequential(torch.nn.Linear(1, 1))  # and casts to neck[0]'s dtype (fp32)
            self.set_threads(threads)

        def set_threads(self, n: int) -> None:
            so = ort.SessionOptions()
            so.intra_op_num_threads, so.inter_op_num_threads = n, 1
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            self.session = ort.InferenceSession(str(self.path), so, providers=["CPUExecutionProvider"])

        def forward(self, x: Any) -> Any:
            out = self.session.run(None, {"image": x.detach().numpy().astype(np.float32)})[0]
            return torch.from_numpy(out)

    return OrtEncoder()


def export_onnx(model: MobileSam, work: Path) -> tuple[Path, Path]:
    """(fp32, int8) ONNX files of ``model``'s image encoder at its side under ``work``, made once."""
    torch = model.torch
    work.mkdir(parents=True, exist_ok=True)
    fp32, int8 = work / f"mobile_sam_encoder_{model.side}.onnx", work / f"mobile_sam_encoder_{model.side}_int8.onnx"
    if not fp32.exists():
        dummy = torch.zeros((1, 3, model.side, model.side), dtype=torch.float32)
        tmp = fp32.with_suffix(".tmp.onnx")
        with torch.no_grad():
            torch.onnx.export(model.sam.image_encoder, (dummy,), str(tmp), input_names=["image"],
                              output_names=["embedding"], opset_version=17, dynamo=False)
        tmp.rename(fp32)
    if not int8.exists():
        quant = importlib.import_module("onnxruntime.quantization")
        tmp = int8.with_suffix(".tmp.onnx")
        quant.quantize_dynamic(str(fp32), str(tmp), weight_type=quant.QuantType.QInt8,
                              op_types_to_quantize=["MatMul", "Gemm"])
        tmp.rename(int8)
    return fp32, int8


class VariantSam(MobileSam):
    """``MobileSam`` whose image encoder is run as ``variant`` (see the module's doc)."""

    def __init__(self, root: Path, threads: int = 1, side: int = SIDE, variant: str = CONTROL,
                 work: Path = WORK) -> None:
        super().__init__(root, threads=threads, side=side)
        self.variant = check_variant(variant)
        torch = self.torch
        enc = self.sam.image_encoder
        if variant == "torch-int8":
            q = torch.ao.quantization.quantize_dynamic(copy.deepcopy(enc), {torch.nn.Linear}, dtype=torch.qint8)
            if side != SIDE:     # the deep copy kept the closure over the fp32 encoder: point it at q
                q.forward_features = _forward_features(q, side // 16)
            self.sam.image_encoder = q.eval()
        elif variant.startswith("ort-"):
            fp32, int8 = export_onnx(self, work)
            self.sam.image_encoder = _ort_module(torch, fp32 if variant == "ort-fp32" else int8, threads,
                                                  side)

    def set_threads(self, n: int) -> None:
        """Run the encoder on ``n`` threads (torch's for the torch variants, a new ONNX session's)."""
        self.torch.set_num_threads(n)
        if self.variant.startswith("ort-"):
            self.sam.image_encoder.set_threads(n)
