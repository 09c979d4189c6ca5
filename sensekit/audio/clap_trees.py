"""Every tree of a boosted model walked at once, in a dozen numpy calls (QuickScorer's bitvectors).

``BitTrees(feature, threshold)`` takes complete trees of depth <= 6 as ``clap_model.MODEL``
holds them (level by level; ``v[feature] > threshold`` goes right, NaN left) and
``leaf_index(v)`` returns, for every tree, the flat index (``tree * 2**depth + leaf``) of
the leaf that ``v`` reaches: the same leaves as a walk down each tree, found without walking.

How (Lucchese et al., "QuickScorer", SIGIR 2015): give each tree a 64-bit word with one bit
per leaf, left to right. A node whose test is true (the burst goes right) rules out every
leaf of its left subtree; the leaf reached is the leftmost one that no true node rules out,
i.e. the lowest bit still set after AND-ing the masks of all true nodes. The true nodes of
one feature are those whose threshold is below the feature's value: a prefix of that
feature's thresholds sorted. So the AND of every prefix is computed once, here (a table of
``thresholds + 1`` rows of one word per tree for each feature, 7 MB for the shipped 301
trees), and a burst needs one ``searchsorted`` over all features at once (complex keys:
feature index + 1j * threshold, ordered by feature, then threshold), one gather of 16 rows,
one AND down them, the lowest set bit of each word (``m & -m``, a power of two) and a table
lookup of its position (the powers of two up to 2**63 are distinct modulo 67, taken unsigned). NaN counts as below every
threshold (no node true), as the walk sends it left.

The caller sums the leaf values exactly as before (``leaf.take(index).sum()``), so a score
is the same to the bit. ``tests/audio/test_clap_trees.py`` checks the leaves against the
walk on values at, between and beyond every threshold, NaN and +-inf included.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_DEPTH = 6                       # 64 leaves: one bit each in an int64
_MOD = 67                           # 2**k mod 67 differs for k = 0..65 (2 is a primitive root)


def model_dict(depth: int, base: float,
               trees: Sequence[tuple[Sequence[int], Sequence[float], Sequence[float]]]) -> dict[str, Any]:
    """A model dict from a generated module's trees (``(features, thresholds, leaves)`` per
    tree, level by level): what ``clap_model.MODEL`` and ``clap_noise_model.MODEL`` are made
    of (``clap_training.format_module`` writes the call)."""
    return {"depth": depth, "base": base, "feature": [t[0] for t in trees],
            "threshold": [t[1] for t in trees], "leaf": [t[2] for t in trees]}


def _left_masks(depth: int) -> np.ndarray:
    """Per node (level order), the leaves it keeps when its test is true: all but its left
    subtree's (bits as int64)."""
    n_leaf = 1 << depth
    masks = []
    for j in range((1 << depth) - 1):
        level = (j + 1).bit_length() - 1
        span = n_leaf >> level                      # leaves under the node
        first = (j - ((1 << level) - 1)) * span     # its leftmost leaf
        left = ((1 << (span // 2)) - 1) << first
        masks.append(((1 << 64) - 1) ^ left)
    return np.array(masks, np.uint64).view(np.int64)


class BitTrees:
    """Leaf indices of complete trees (depth <= ``MAX_DEPTH``) for one feature vector."""

    def __init__(self, feature: np.ndarray, threshold: np.ndarray) -> None:
        n_trees, n_int = feature.shape
        depth = n_int.bit_length()
        if n_int != (1 << depth) - 1 or not 1 <= depth <= MAX_DEPTH or not n_trees:
            raise ValueError(f"BitTrees needs complete trees of depth 1..{MAX_DEPTH}, got {n_int} nodes")
        if feature.min() < 0:
            raise ValueError("a split feature index is negative")
        self.n_features = n_features = int(feature.max()) + 1
        masks = np.broadcast_to(_left_masks(depth), (n_trees, n_int))
        tree = np.broadcast_to(np.arange(n_trees)[:, None], (n_trees, n_int))
        keys, tables = [], []
        for f in range(n_features):
            sel = (feature == f) & (threshold < np.inf)    # +inf: never true, never in a prefix
            u = np.unique(threshold[sel])
            tab = np.full((len(u) + 1, n_trees), -1, np.int64)
            np.bitwise_and.at(tab, (np.searchsorted(u, threshold[sel]) + 1, tree[sel]), masks[sel])
            tables.append(np.bitwise_and.accumulate(tab, axis=0))
            keys.append(f + 1j * u)
        self._keys = np.concatenate(keys)                 # sorted: by feature, then threshold
        self._table = np.concatenate(tables)             # row: key position + feature index
        self._query = np.arange(n_features) + 0j          # real part: the feature index
        self._row = np.arange(n_features)
        # the leaf's flat index for (2**leaf mod 67) of tree t: t * 2**depth + leaf
        pos = np.zeros(_MOD, np.intp)
        bits = np.left_shift(np.uint64(1), np.arange(1 << depth, dtype=np.uint64))
        pos[np.remainder(bits, _MOD).astype(np.intp)] = np.arange(1 << depth)
        self._flat = (np.arange(n_trees)[:, None] * (1 << depth) + pos).ravel()
        self._off = np.arange(n_trees) * _MOD
        self.nbytes = self._table.nbytes + self._keys.nbytes + self._flat.nbytes

    def leaf_index(self, v: np.ndarray) -> np.ndarray:
        """Flat leaf index per tree for the feature vector ``v`` (NaN: below every threshold;
        features past the last one a tree splits on are not read)."""
        q = self._query.copy()                            # (one model serves every detector)
        q.imag = np.fmax(v if len(v) == self.n_features else v[:self.n_features], -np.inf)
        # (NaN -> -inf above: no threshold is below it)
        rows = self._keys.searchsorted(q)                 # thresholds below v[f], + f's offset
        rows += self._row
        m = np.bitwise_and.reduce(self._table.take(rows, axis=0), axis=0)
        m &= -m                                           # the lowest set bit: the exit leaf
        u = m.view(np.uint64)                             # (unsigned: bit 63 is +2**63, not -2**63,
        np.remainder(u, _MOD, out=u)                      # whose remainder is bit 30's)
        m += self._off
        out: np.ndarray = self._flat.take(m)
        return out
