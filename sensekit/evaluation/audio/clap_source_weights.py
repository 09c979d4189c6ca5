"""The thirty-fourth pass (docs/claps_history.md): the Debian negatives weighted by source, and the
close-call wait re-nested for those trees. Declared before any held-out figure of the pass.

The thirty-third pass put six Debian packages' recordings (``clap_debian.SOURCES``, 35,433 bursts with
their copies) into every fold's training set with the trainer's own weights: ``balanced_weights`` gives
each (source, class) group ``n ** 0.5`` in total, so a Debian source with 6,033 bursts (the keyboard)
weighed as much as a developer source of that size, more than most of the clips' sources. Here **each
Debian source's negatives together weigh what one developer negative source weighs on average**
(``by_source``), so no single package can outweigh the clips:

1. ``w`` = the trainer's weights of the fold's training rows, as ``clap_training.train`` makes them
   (``balanced_weights(y, source)`` times ``ORIG_WEIGHT`` on ``orig``).
2. ``M`` = the mean, over the developer sources (every source not named ``deb_*``, ``synth`` included)
   with at least one negative in that fold's training set, of the total ``w`` of the source's negatives
   (its recordings and copies).
3. Each Debian source's rows are scaled by one factor so that their total is ``M`` (inside the source
   the recordings still weigh ``ORIG_WEIGHT`` times a copy).
4. Every negative is then scaled by one common factor so that the negatives' total is what it was in
   step 1 (the classes keep the trainer's balance and scale; each Debian source still weighs ``M``
   against the developer sources' unchanged weights).

Positives are untouched; without a Debian row the weights are step 1's exactly (the control: the 14
folds refit through ``by_source`` without the Debian sources equal today's trees). Everything else is
the thirty-third pass's: the same bursts (``DEB.npz``), trainer, features, leave-one-source-out folds,
``T`` nested as shipped (``nested_thresholds`` on the developer bursts' fold scores).

**The close-call wait re-nested** for those trees, as the thirty-second pass did for the refit trees
(``clap_refit_inputs.nest_wait``, unchanged: margin by ``nested_waits`` under the latency caps, log-mel
weights by ``fit_linear`` on the other sources' close calls, rule and theta by ``choose``; each held-out
source from the other sources only, no constant chosen on a held-out source). The bursts outside
``MELS.npz`` (no log-mel) are left out of the fits and score 0 in the choice of theta, as there.

**Measured** held out as the thirty-third pass: streamed through ``ClapDetector`` (route off, 512-sample
blocks) at offsets 0 and 517, per-clap F1 per clap source, negative clips firing and false claps per
source, sharwin's recipe, the white/pink/babble/one-speaker curve, p50 delay; beside today's folds and
the thirty-third pass's unweighted figures. **Ship rule** (the twenty-sixth pass's): against today's
folds, fewer negative clips fire, no clap source's per-clap F1 drops, sharwin's recipe F1 does not drop,
white, pink and babble at 10 dB do not lose, p50 decision delay <= 42 ms. Otherwise evaluation only.
"""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_debian import PREFIX

__all__ = ["by_source"]


def by_source(w: np.ndarray, y: np.ndarray, source: np.ndarray, *, prefix: str = PREFIX) -> np.ndarray:
    """The weights ``w`` of the rows (class ``y``, ``source``) with each ``prefix`` source's negatives
    together weighing the mean total of the other sources' negatives, then the negatives rescaled to
    their total in ``w``; ``w`` itself when no row is a ``prefix`` source (see the module docstring)."""
    w = np.asarray(w, np.float64)
    y = np.asarray(y)
    src = np.asarray(source).astype(str)
    if not (w.shape == y.shape == src.shape):
        raise ValueError(f"weights {w.shape}, classes {y.shape} and sources {src.shape} differ")
    extra = np.char.startswith(src, prefix)
    if not extra.any():
        return w
    if (y[extra] != 0).any():
        raise ValueError(f"a {prefix}* source has a positive: only negatives are weighted by source")
    neg = y == 0
    own = sorted(set(src[neg & ~extra].tolist()))
    if not own:
        raise ValueError(f"no negative outside the {prefix}* sources to weigh them against")
    mean = float(np.mean([w[neg & (src == s)].sum() for s in own]))
    out = w.copy()
    for s in sorted(set(src[extra].tolist())):
        k = src == s
        total = float(w[k].sum())
        if total <= 0:
            raise ValueError(f"source {s!r} has no weight to scale")
        out[k] *= mean / total
    out[neg] *= w[neg].sum() / out[neg].sum()
    return out
