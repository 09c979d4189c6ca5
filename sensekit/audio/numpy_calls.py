"""NumPy's C functions for the audio hot paths, called without their Python wrappers.

Each name here is the very C function (or ufunc method) that the public NumPy call runs, so a
result is the same to the bit; only the wrapper's argument handling (~1 us a call) is skipped.
Where a NumPy lacks the private name (numpy < 2 for some), the public function stands in.
``benchmarks/clap_identity.py`` and ``benchmarks/stage_identity.py`` check the outputs of the
stages that use them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["add_acc", "correlate", "count_nonzero", "einsum", "maximum_acc", "reduce_max",
           "rfft_ufuncs", "sum_reduce"]

_multiarray: Any = getattr(getattr(np, "_core", None), "multiarray", None)

reduce_max = np.maximum.reduce          # ndarray.max
maximum_acc = np.maximum.accumulate
sum_reduce = np.add.reduce              # ndarray.sum
add_acc = np.add.accumulate             # np.cumsum
count_nonzero: Any = getattr(_multiarray, "count_nonzero", np.count_nonzero)
einsum: Any = getattr(_multiarray, "c_einsum", np.einsum)
correlate: Any = getattr(_multiarray, "correlate2", np.correlate)   # mode as a number: 0 valid
rfft_ufuncs: Any = getattr(np.fft, "_pocketfft_umath", None)        # numpy >= 2: rfft's ufuncs
