"""``sensekit.evaluation.audio.clap_variants.detector_class``: a benchmark's variant of the floor
route or of the gap bridge is the class it makes its detectors with (``clap_gap_cuts.py``,
``clap_babble_band.py``, ``clap_net_stream.py`` rewrote ``clap.bridge`` and ``clap_floor.FloorRoute``
for the whole process): the variant's detector calls it, a ``ClapDetector`` made beside it does not."""
from __future__ import annotations

import numpy as np

from sensekit.audio import clap_gap
from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_floor import FloorRoute
from sensekit.evaluation.audio.clap_variants import detector_class

RATE = 16000
BLOCK = 512


def _noise(seconds: float) -> np.ndarray:
    return (0.01 * np.random.default_rng(0).standard_normal(int(seconds * RATE))).astype(np.float32)


def _stream_with_a_gap(det: ClapDetector, x: np.ndarray, gap_s: float) -> None:
    half = len(x) // 2
    for k, i in enumerate(range(0, len(x), BLOCK)):
        t = i / RATE + (gap_s if i >= half else 0.0)
        det.process(x[i:i + BLOCK], t, RATE, index=k)


def test_the_variant_s_bridge_takes_the_gap_and_a_shipped_detector_keeps_its_own() -> None:
    calls: list[int] = []

    def bridge(det, gap, samples, t, rate, index):
        calls.append(gap)
        return clap_gap.bridge(det, gap, samples, t, rate, index)

    x = _noise(2.0)
    _stream_with_a_gap(detector_class(bridge=bridge)(), x, 1.0)
    assert calls and calls[0] >= RATE * 0.9          # the 1 s gap, bridged by the variant
    n = len(calls)
    _stream_with_a_gap(ClapDetector(), x, 1.0)
    assert len(calls) == n                             # nothing rewritten for the next detector


def test_the_variant_s_floor_route_is_made_only_for_its_detectors() -> None:
    made: list[int] = []

    class Counted(FloorRoute):
        def __init__(self, rate: int) -> None:
            made.append(rate)
            super().__init__(rate)

    det = detector_class(route=Counted)(noise_route=True)
    det.process(_noise(0.5), 0.0, RATE)
    assert made and isinstance(det._route, Counted)
    n = len(made)
    plain = ClapDetector(noise_route=True)
    plain.process(_noise(0.5), 0.0, RATE)
    assert len(made) == n and type(plain._route) is FloorRoute
    assert detector_class() is ClapDetector


def test_a_subclass_s_tree_score_is_the_one_a_burst_gets(shared_data) -> None:
    """``ClapDetector._tree_score`` (``benchmarks/clap_cost.py`` counts and replays it in a subclass,
    where it used to rewrite ``clap.clap_score``): the subclass's score decides every burst the
    trees judge, and a plain detector made after it hears the clip's claps."""
    import soundfile as sf

    x, rate = sf.read(str(shared_data / "audio/clap_k_pairs8.wav"), dtype="float32")
    scored: list[float] = []

    class Deaf(ClapDetector):
        def _tree_score(self, vals: tuple[float, ...]) -> float:
            scored.append(super()._tree_score(vals))
            return -99.0

    def claps(det: ClapDetector) -> int:
        n = sum(len(det.process(x[i:i + BLOCK], i / rate, rate)) for i in range(0, len(x), BLOCK))
        return n + len(det.finish())

    assert claps(Deaf(noise_route=False)) == 0 and len(scored) >= 8
    assert claps(ClapDetector(noise_route=False)) == 8
