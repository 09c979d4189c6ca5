"""``extent.ExtentExperiment``: what a benchmark adds to the measured extent is passed down the
call (``experiment=``), never set in a module: the cue names of a run come from it, the still
score skips its motion columns, a bad one is refused by name, and a tracker made with one hands
it to its click's segmentation, pool and second look, while the shipped extent stays as it was."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.vision.extent_experiment import experiment
from sensekit.evaluation.vision.held_out import FittedExperiment, held_out, unseen_by_fit
from sensekit.evaluation.vision.motion_edge import MOTION_EDGE, NAME
from sensekit.vision import extent, extent_model
from sensekit.vision.extent import (FEATURES, MOTION_FEATURES, ExtentExperiment, feature_names, features,
                                    measure_pool, pool_proposals, scores, temperature)
from sensekit.vision.proposals import Proposal
from tests.vision.test_extent import _moving_patch


def _ones(flow: np.ndarray | None, rects: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> np.ndarray:
    return np.full((len(rects), 2), 7.0)


def test_the_names_of_a_run_come_from_its_experiment() -> None:
    two = ExtentExperiment(motion_cues=_ones, motion_names=("a", "b"))
    nm = len(MOTION_FEATURES)
    assert feature_names() == FEATURES and feature_names(None, motion=False) == FEATURES[nm:]
    assert two.features == MOTION_FEATURES + ("a", "b") + FEATURES[nm:]
    assert feature_names(two, motion=False) == FEATURES[nm:]
    assert feature_names(MOTION_EDGE)[nm] == NAME
    assert experiment() is None
    both = experiment(motion_proposals=True, motion_edge=True)
    assert both is not None and both.proposals is not None and both.motion_names == (NAME,)
    assert extent.FEATURES == FEATURES and extent.MOTION_FEATURES == MOTION_FEATURES


def test_a_bad_experiment_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="motion_cues and motion_names go together"):
        ExtentExperiment(motion_cues=_ones)
    with pytest.raises(ValueError, match="motion_cues and motion_names go together"):
        ExtentExperiment(motion_names=("a",))
    with pytest.raises(ValueError, match="repeat a name"):
        ExtentExperiment(motion_cues=_ones, motion_names=("motion_sep_2", "b"))
    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1])
    wrong = ExtentExperiment(motion_cues=_ones, motion_names=("a",))      # gives 2 columns for 1 name
    with pytest.raises(ValueError, match=r"motion_cues gave shape \(\d+, 2\)"):
        features(frames[-1], x, y, props, flow=flow, experiment=wrong)


def test_extra_cues_sit_after_the_motion_cues_and_the_still_score_skips_them(monkeypatch) -> None:
    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1])
    two = ExtentExperiment(motion_cues=_ones, motion_names=("a", "b"))
    nm = len(MOTION_FEATURES)
    shipped = features(frames[-1], x, y, props, flow=flow)
    got = features(frames[-1], x, y, props, flow=flow, experiment=two)
    assert got.shape == (len(props), len(two.features))
    assert (got[:, nm:nm + 2] == 7.0).all()
    np.testing.assert_array_equal(np.delete(got, [nm, nm + 1], axis=1), shipped)
    # a model file of the experiment: two more motion weights, a still fit without its own mean
    # and std (``train_extent.py`` writes it so): its columns are the motion fit's after all 6
    full = extent_model.ACTIVE["motion"]
    mean, std = np.asarray(full["mean"], float), np.asarray(full["std"], float)
    w = np.asarray(extent_model.ACTIVE["still"]["weights"], float)
    model = {"motion": {"mean": list(np.insert(mean, nm, [7.0, 7.0])), "std": list(np.insert(std, nm, [1.0, 1.0])),
                        "weights": list(np.insert(np.asarray(full["weights"], float), nm, [0.0, 0.0]))},
             "still": {"weights": list(w)}}
    monkeypatch.setattr(extent_model, "ACTIVE", model)
    want = ((shipped[:, nm:] - mean[nm:]) / std[nm:]) @ w
    np.testing.assert_array_equal(scores(got, motion=False, experiment=two), want)
    np.testing.assert_allclose(scores(got, motion=True, experiment=two),
                               ((shipped - mean) / std) @ np.asarray(full["weights"], float))


def test_proposals_of_an_experiment_join_the_pool_only_when_passed() -> None:
    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    seen: list[float] = []

    def one_more(props: list[Proposal], flow: np.ndarray, f: float, cx: float, cy: float) -> list[Proposal]:
        seen.append(f)
        return [props[-1]]

    adds = ExtentExperiment(proposals=one_more)
    shipped, _ = pool_proposals(frames[-1], x, y, frames[:-1])
    more, _ = pool_proposals(frames[-1], x, y, frames[:-1], experiment=adds)
    assert len(more) == len(shipped) + 1 and more[-1] is more[-2] and seen == [0.5]
    still, _ = pool_proposals(frames[-1], x, y, experiment=adds)        # no history: no flow, none added
    assert len(seen) == 1 and len(still) == len(shipped)
    props, values = measure_pool(frames[-1], x, y, frames[:-1], experiment=adds)
    assert len(props) == len(values) == len(more) and len(seen) == 2
    again, _ = pool_proposals(frames[-1], x, y, frames[:-1])            # nothing was left set
    assert [p.box for p in again] == [p.box for p in shipped] and len(seen) == 2


def test_a_tracker_made_with_an_experiment_hands_it_down() -> None:
    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
    from sensekit.vision.color_tracker import ColorTracker

    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    calls: list[int] = []

    def none_more(props: list[Proposal], flow: np.ndarray, f: float, cx: float, cy: float) -> list[Proposal]:
        calls.append(len(props))
        return []

    adds = ExtentExperiment(proposals=none_more)
    t = ExperimentTracker(extent_experiment=adds)
    t.pick(frames[-1], x, y, history=frames[:-1])
    assert t.picked is not None and t.picked.method == "proposal", t.picked
    assert calls, "the click's measured extent did not get the experiment"
    assert t.pool is not None and t.pool.experiment is adds
    assert t.refiner is None or t.refiner.experiment is adds
    plain = ColorTracker()
    assert plain.extent_experiment is None
    n = len(calls)
    plain.pick(frames[-1], x, y, history=frames[:-1])
    assert len(calls) == n


def test_the_public_tracker_takes_no_experiment() -> None:
    """The hook is the evaluation's ``ExperimentTracker``: ``ColorTracker``'s constructor is the
    shipped one, and an ``extent_experiment=`` given to it is refused like any unknown setting."""
    import inspect

    from sensekit.errors import ConfigError
    from sensekit.vision.color_tracker import ColorTracker

    assert "extent_experiment" not in inspect.signature(ColorTracker.__init__).parameters
    with pytest.raises((ConfigError, TypeError), match="extent_experiment"):
        ColorTracker(extent_experiment=ExtentExperiment())


def test_an_experiment_scores_with_its_own_weights_and_folds() -> None:
    """Weights passed with the experiment (a model file's ``ACTIVE`` and ``FOLDS``) score its cues,
    ``held_out`` gives its fold for the clip (passed down, no context), and ``extent_model`` is
    never rewritten."""
    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1])
    shipped, folds = extent_model.ACTIVE, extent_model.FOLDS
    clip = sorted(folds)[0]
    cues = features(frames[-1], x, y, props, flow=flow)

    def flipped(fit: dict) -> dict:          # every weight negated, another temperature
        return {k: {**v, "weights": [-w for w in v["weights"]], "temperature": 0.25} for k, v in fit.items()}

    own = FittedExperiment(weights=flipped(shipped), folds={clip: flipped(folds[clip])})
    for motion in (True, False):
        plain = scores(cues, motion=motion)
        np.testing.assert_allclose(scores(cues, motion=motion, experiment=own), -plain)
        assert temperature(motion=motion, experiment=own) == 0.25
        held = scores(cues, motion=motion, experiment=held_out(clip))
        np.testing.assert_allclose(scores(cues, motion=motion, experiment=held_out(clip, own)), -held)
        assert temperature(motion=motion, experiment=held_out(clip, own)) == 0.25
        assert not np.allclose(held, plain)          # the fold is not the shipped fit: a real check
    assert extent_model.ACTIVE is shipped and extent_model.FOLDS is folds
    other = sorted(folds)[1]
    with pytest.raises(KeyError, match=f"no held-out weights for clip '{other}'"):
        held_out(other, own)
    assert unseen_by_fit(other, own) is own              # its folds say no fit of it saw the clip
    with pytest.raises(KeyError, match="its own weights and no folds"):
        unseen_by_fit(clip, ExtentExperiment(weights=shipped))


def test_the_shipped_extent_holds_no_evaluation_state() -> None:
    """The held-out choice is evaluation's: the shipped extent has no folds, no ``held_out`` and
    no context variable that a click looks up; an experiment's fold reaches it only as the
    ``weights`` passed down."""
    import contextvars
    import dataclasses

    assert not hasattr(extent, "held_out") and not hasattr(extent, "unseen_by_fit")
    assert not [v for v in vars(extent).values() if isinstance(v, contextvars.ContextVar)]
    assert "folds" not in {f.name for f in dataclasses.fields(ExtentExperiment)}
    made = experiment(motion_edge=True, weights=extent_model.ACTIVE, folds=extent_model.FOLDS)
    assert isinstance(made, FittedExperiment) and made.folds is extent_model.FOLDS
    clip = sorted(extent_model.FOLDS)[0]
    held = held_out(clip, made)
    assert type(held) is ExtentExperiment and held.weights is extent_model.FOLDS[clip]
    assert (held.motion_cues, held.motion_names) == (MOTION_EDGE.motion_cues, MOTION_EDGE.motion_names)


def test_an_experiment_tracker_takes_its_first_box_from_its_click_pool() -> None:
    """``ExperimentTracker(click_pool=...)`` (``track_eval.py --holder-cut``/``--salient``) picks the box
    its function gives, called with the click, the history and its experiment; a plain
    ``ColorTracker`` made after it measures the click as shipped (nothing patched)."""
    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
    from sensekit.vision.color_tracker import ColorTracker
    from sensekit.vision.segment import Segment

    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    mask = np.zeros(frames[-1].shape[:2], bool)
    mask[100:140, 200:260] = True
    calls: list[tuple[float, float, int, object]] = []

    def given(frame: np.ndarray, cx: float, cy: float, *, history, experiment) -> tuple[Segment, None]:
        calls.append((cx, cy, len(history), experiment))
        return Segment((200, 100, 60, 40), mask, "salient"), None

    adds = ExtentExperiment()
    t = ExperimentTracker(extent_experiment=adds, click_pool=given)
    t.pick(frames[-1], x, y, history=frames[:-1])
    assert t.picked is not None and t.picked.box == (200, 100, 60, 40) and t.picked.method == "salient"
    assert calls == [(x, y, len(frames) - 1, adds)]
    plain = ColorTracker()
    plain.pick(frames[-1], x, y, history=frames[:-1])
    assert plain.picked is not None and plain.picked.method == "proposal" and len(calls) == 1
