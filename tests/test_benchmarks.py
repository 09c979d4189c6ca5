"""Benchmarks that check their outputs before timing still agree with their reference.

``benchmarks/vision.py`` times sensekit's chain against the raw-OpenCV reference only after
checking that both give the same images and rects on every frame; when a default changes (the
motion method became the background model), the check is what says the comparison is no
longer like for like. Run tiny (160x120, 3 rounds): the ratio is not asserted here (timing
belongs to the benchmark), only that the outputs are equal and it prints its line.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO.parent / "shared" / "bench"


def test_the_vision_benchmark_still_compares_equal_outputs() -> None:
    if not (BENCH / "vision_ref.py").exists():
        pytest.skip(f"the reference chain {BENCH / 'vision_ref.py'} is absent")
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "vision.py"), "--sizes", "160x120",
                           "--rounds", "3"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "outputs equal on 16 frames" in proc.stdout
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["name"] == "vision.sensekit.chain_vs_ref" and line["ratio"] > 0


def test_the_benchmarks_refuse_missing_shared_data_in_one_place(tmp_path, capsys) -> None:
    """``_reference.data_refused``: the one line and the verdict every benchmark that needs the shared data
    refuses with (eleven wrote the three lines each); none writes that line itself any more
    (``_clap_clips.clap_clips`` has its own, which names ``--data``)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _reference import data_refused

    assert data_refused(tmp_path) is True
    assert capsys.readouterr().err == f"shared data not found at {tmp_path}\n"
    (tmp_path / "labels.csv").write_text("file,label\n")
    assert data_refused(tmp_path) is False and capsys.readouterr().err == ""
    own = [p.name for p in (REPO / "benchmarks").glob("*.py")
           if p.name not in ("_reference.py", "_clap_clips.py") and "shared data not found at" in p.read_text()]
    assert own == []


def test_person_track_eval_s_pool_is_what_the_pipeline_measures(monkeypatch) -> None:
    """``benchmarks/person_track_eval.py`` measures the HOG scoring only if the pipeline measures
    every extent with its experiment's ``pool``: it used to replace names the pipeline looks up
    (two had gone stale: ``segment`` came to call ``measure_pool``, ``track_eval``
    ``unseen_by_fit``, and a run was plain ``track_eval``'s with HOG in the second look only);
    since house29 it passes an ``ExtentExperiment(pool=)`` down, made per clip by its
    ``unseen_by_fit`` (``track_eval``'s ``unseen``). The pool is a spy here that passes the call on,
    and the pipeline's callers are driven (a click, its pool, a second look, a held-out clip run):
    each must measure through the pool, and the held-out run must get the clip's experiment."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import argparse
    from functools import partial

    import numpy as np
    import person_track_eval
    import track_eval

    from sensekit.vision.click_pool import ClickPool
    from sensekit.vision.click_refine import ClickRefiner
    from sensekit.vision.segment import segment_click_pool

    from sensekit.vision import extent

    called: list[str] = []
    inside: list[str] = []

    def pool(where: str):
        def spy(frame, x, y, history):
            called.append(where)
            inside.append(where)
            try:
                return extent.measure_pool(frame, x, y, history)
            finally:
                inside.pop()
        return spy
    proposals = extent.click_proposals

    def measured(*args, **kwargs):              # every extent measured goes through the pool
        assert inside, "the pipeline measured an extent without the experiment's pool"
        return proposals(*args, **kwargs)
    monkeypatch.setattr(extent, "click_proposals", measured)

    frame = np.random.default_rng(0).integers(0, 256, (96, 128, 3), dtype=np.uint8)
    history = [frame] * 6
    first, got = segment_click_pool(frame, 64, 48, history=history,
                                    experiment=extent.ExtentExperiment(pool=pool("segment")))
    assert got is not None                      # noise is no clean colour region: the extent is measured
    assert ClickPool(frame, (64, 48), first, history=history,
                     experiment=extent.ExtentExperiment(pool=pool("click_pool"))).segments()
    refiner = ClickRefiner(frame, after_frames=6, gain=1.5,
                           experiment=extent.ExtentExperiment(pool=pool("click_refine")))
    for _ in range(6):
        refiner.add(frame)
    refiner.decide(frame, (64, 48), first.box)
    assert sorted(set(called)) == ["click_pool", "click_refine", "segment"]

    clip = sorted(extent.extent_model.FOLDS)[0]          # a clip the shipped weights have a fold for
    models = {"active": "the fit on all clips", "folds": {clip: "the fold without it"}}
    fits: list[object] = []
    monkeypatch.setattr(person_track_eval, "measure_pool", lambda fit, *a: fits.append(fit) or ([], None))
    seen: list[object] = []
    monkeypatch.setattr(track_eval, "load_clip", lambda clips, name: name)

    def evaluate_clip(name, make, **kw):
        exp = make().extent_experiment
        seen.append(exp)
        exp.pool(frame, 64, 48, ())
        return [name]
    monkeypatch.setattr(track_eval, "evaluate_clip", evaluate_clip)
    args = argparse.Namespace(tracker_settings={}, held_out=True, clips=REPO, starts=None, frames=None)
    unseen = partial(person_track_eval.unseen_by_fit, models)
    assert track_eval.scale_results(args, [clip, "own"], 1, [], 0.0, unseen) == {clip: [clip], "own": ["own"]}
    assert fits == ["the fold without it", "the fit on all clips"]
    assert seen[0].weights is extent.extent_model.FOLDS[clip] and seen[1].weights is None


def test_person_track_eval_pool_is_the_fit_s_choice() -> None:
    """The HOG ``measure_pool`` gives every proposal (HOG's after the click's) a value
    whose highest is the proposal ``train_extent.choose`` takes with the same fit (a linear fit
    of the ``--write-models`` shape: the cues, from-HOG and HOG's margin), with and without motion;
    ``extent.measure_extent`` with it as the experiment's pool takes that one."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from functools import partial

    import numpy as np
    import person_track_eval
    from train_extent import KINDS, choose

    from sensekit.vision.extent import FEATURES, ExtentExperiment, features, measure_extent
    from sensekit.vision.proposals import click_proposals

    rng = np.random.default_rng(0)
    fits = {}
    for kind in ("still", "motion"):
        n = len(range(len(FEATURES) + 2)[KINDS[kind]])
        fits[kind] = {"mean": rng.normal(size=n), "std": np.ones(n), "weights": rng.normal(size=n),
                      "temperature": 0.5}
    frame = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    for history, kind in (([], "still"), ([frame] * 6, "motion")):
        props, values = person_track_eval.measure_pool(fits, frame, 80, 60, history)
        assert len(values) == len(props) >= len(click_proposals(frame, 80, 60))
        cues = features(frame, 80, 60, props, history)
        assert all(p.window < 100 for p in props)              # noise: no HOG person box
        cues = np.hstack([cues, np.zeros((len(props), 2))])
        boxes = np.array([p.box for p in props], np.float64)
        best = choose(fits[kind], cues[:, KINDS[kind]], boxes)
        assert int(np.argmax(values)) == best
        pool = ExtentExperiment(pool=partial(person_track_eval.measure_pool, fits))
        assert measure_extent(frame, 80, 60, history, experiment=pool).box == props[best].box


def _band_folds() -> dict:
    """One source's fold for ``clap_babble_band``: k's clips under the shipped trees at 0."""
    from sensekit.audio.clap import ClapDetector

    return {"models": {"k": ClapDetector().model}, "threshold": 0.0}


def _totals(by: dict) -> list[tuple[str, int, int]]:
    return [(cond, a["count"]["found"], a["fp"]) for conds in by.values() for cond, a in sorted(conds.items())]


def test_clap_babble_band_streams_the_route_it_is_given(shared_data) -> None:
    """``clap_babble_band.py --streamed``'s lever column is ``collect`` with a floor route made for
    each detector; its detectors had the noise route off, so no route was made and the column
    equalled the shipped one on every row whatever the lever (house29). A made-up route that
    calls every burst it sees a clap must change the column; the benchmark's own lever at drop 0
    must not (the lever is the one difference); at drop 2 it must find more of k's claps over
    babble at 5 dB (58 -> 61)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from clap_babble_band import collect, with_band

    from sensekit.audio.clap_floor import FloorRoute

    class EveryBurst(FloorRoute):
        def score(self, x, p, vals):
            return 50.0

    folds = _band_folds()
    model = folds["models"]["k"]
    shipped = collect(shared_data, [5.0], folds, only="k")
    made_up = collect(shared_data, [5.0], folds, only="k", route=EveryBurst)
    assert _totals(made_up) != _totals(shipped)
    assert sum(f for _, _, f in _totals(made_up)) > sum(f for _, _, f in _totals(shipped))
    at_zero = collect(shared_data, [5.0], folds, only="k", route=with_band(25.0, 0.0, model, FloorRoute))
    assert _totals(at_zero) == _totals(shipped)
    lever = collect(shared_data, [5.0], folds, only="k", route=with_band(25.0, 2.0, model, FloorRoute))
    found = {c: n for c, n, _ in _totals(lever)}
    assert found["babble 5 dB"] > {c: n for c, n, _ in _totals(shipped)}["babble 5 dB"]
