"""Loading the reference implementations in ../shared/bench, shared by every benchmark.

The references are plain scripts next to their helper ``benchutil.py``, so their folder goes
on ``sys.path`` and the script is imported by path. A missing folder is a clear exit message.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

REPO = Path(__file__).resolve().parents[1]
SHARED_BENCH = REPO.parent / "shared" / "bench"
# The real clips with their labels (tests/conftest.py reads the same folder).
SHARED_DATA = Path(os.environ.get("SENSEKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def data_refused(data: Path = SHARED_DATA) -> bool:
    """Whether ``data`` is not the shared data folder (no ``labels.csv``), after the one line a
    benchmark that needs it refuses with on stderr; its ``main`` then returns 2."""
    if (Path(data) / "labels.csv").is_file():
        return False
    print(f"shared data not found at {data}", file=sys.stderr)
    return True


def load_reference(name: str, bench_dir: Path = SHARED_BENCH) -> ModuleType:
    """Import ``bench_dir/name.py`` (e.g. ``"vision_ref"``) as a module."""
    path = Path(bench_dir) / f"{name}.py"
    if not path.is_file():
        raise SystemExit(f"reference benchmark not found: {path} (use --bench-dir, "
                         "or put the shared folder beside the repo)")
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def median_ms(stats: Sequence[dict[str, Any]]) -> float:
    """The median of the ``median_ms`` of timing runs (``benchutil``'s stats, one dict a run)."""
    import numpy as np

    return float(np.median([s["median_ms"] for s in stats]))
