"""A small multilayer perceptron as plain arrays: the fifteenth pass's candidate clap scorer.

``MlpModel(model)(patch, features)`` is the log-odds that a burst is a clap, from its
``clap_patch.BurstPatch`` (dB over the floor, read as ``/ PATCH_SCALE_DB``) and its 16
``clap_features.FEATURES`` (standardised by the model's ``mean``/``std``; NaN, e.g. ``air_db``
at 8 kHz, reads as the mean). ReLU hidden layers, one linear output. NumPy only: the weights
are lists in a dict (written by ``sensekit.evaluation.audio.clap_net.export``), so scoring needs
neither scikit-learn nor a pickle. Cost: a few small matrix products a burst.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["PATCH_SCALE_DB", "MlpModel", "net_input"]

PATCH_SCALE_DB = 20.0


def net_input(patch: np.ndarray, features: np.ndarray, mean: np.ndarray, std: np.ndarray,
              *, use_patch: bool = True, use_features: bool = True) -> np.ndarray:
    """Rows of the net's input: ``patch`` (n, bands, frames) and ``features`` (n, 16)."""
    parts = []
    if use_patch:
        parts.append(patch.reshape(len(patch), -1) / PATCH_SCALE_DB)
    if use_features:
        z = (features - mean) / std
        parts.append(np.where(np.isfinite(z), z, 0.0))
    return np.asarray(np.concatenate(parts, axis=1), np.float64)


class MlpModel:
    """The net of a model dict: ``weights`` and ``biases`` per layer, ``mean``/``std`` of the
    features, which inputs it reads (``use_patch``, ``use_features``)."""

    def __init__(self, model: dict[str, Any]) -> None:
        self.W = [np.asarray(w, np.float64) for w in model["weights"]]
        self.b = [np.asarray(b, np.float64) for b in model["biases"]]
        self.mean = np.asarray(model["mean"], np.float64)
        self.std = np.asarray(model["std"], np.float64)
        self.use_patch = bool(model.get("use_patch", True))
        self.use_features = bool(model.get("use_features", True))

    def logits(self, Z: np.ndarray) -> np.ndarray:
        """Log-odds of each row of the net's input ``Z``."""
        h = Z
        for W, b in zip(self.W[:-1], self.b[:-1]):
            h = np.maximum(h @ W + b, 0.0)
        return np.asarray((h @ self.W[-1] + self.b[-1])[:, 0], np.float64)

    def scores(self, patches: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Log-odds of bursts: ``patches`` (n, bands, frames), ``features`` (n, 16)."""
        return self.logits(net_input(patches, features, self.mean, self.std,
                                     use_patch=self.use_patch, use_features=self.use_features))
