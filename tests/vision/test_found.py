"""``color_found`` after the object went (sensekit.evaluation.vision.comeback): scripts on hand-made
tracks, scoring, and the tracker on real clips: found on the object, not on a look-alike."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.vision.comeback import (CUT_AT, Script, Step, cover_script, cut_script, pan_script,
                                                 render, run_script, score_run, walk_script)
from sensekit.evaluation.vision.leave import outside_share, pan_plan, still_plan
from sensekit.vision.color_tracker import ColorTracker


def _still(n: int, box=(60.0, 70.0, 20.0, 20.0)) -> np.ndarray:
    return np.tile(box, (n, 1))


def test_a_cut_away_and_back_resumes_the_first_clip_as_it_is_by_then():
    truth = _still(120)
    gone = cut_script("a", truth, "b", 200, (400, 160), hold=45)
    assert gone is not None and gone.back is None and gone.gone == CUT_AT
    assert [s.clip for s in gone.steps] == ["a"] * CUT_AT + ["b"] * 45
    assert all(s.truth is None for s in gone.steps[CUT_AT:])
    back = cut_script("a", truth, "b", 200, (400, 160), back_after=20, hold=45)
    assert back is not None and back.back == CUT_AT + 20
    assert [s.frame for s in back.steps[CUT_AT + 20:CUT_AT + 22]] == [CUT_AT + 20, CUT_AT + 21]
    assert back.steps[back.back].truth == (60.0, 70.0, 20.0, 20.0)
    assert cut_script("a", truth[:40], "b", 200, (400, 160), back_after=20) is None     # nothing to come back to


def test_a_card_covers_the_object_and_is_removed():
    truth = _still(120)
    s = cover_script("a", truth, back=True)
    assert s is not None and s.back == CUT_AT + 20
    assert s.steps[CUT_AT].card == (60.0, 70.0, 20.0, 20.0) and s.steps[CUT_AT].truth is None
    assert s.steps[s.back].card is None and s.steps[s.back].truth is not None
    frames = {"a": [np.full((160, 400, 3), 200, np.uint8)] * 120}
    covered = render(s.steps[CUT_AT], frames, (400, 160))
    assert covered[70:90, 60:80].max() == 60 and covered[0, 0, 0] == 200


def test_a_pan_away_holds_or_pans_back_and_follows():
    truth = _still(200)
    plan = pan_plan(truth, (400, 160), direction="right", speed_px=4, start=30)
    assert plan is not None
    held = pan_script("a", truth, plan, (400, 160), back=False, hold=45)
    assert held is not None and held.back is None and len(held.steps) == plan.out + 46
    assert all(s.truth is None for s in held.steps[plan.out:])
    back = pan_script("a", truth, plan, (400, 160), back=True)
    assert back is not None and back.away == plan.out and back.back is not None and back.back > plan.out
    w = [s.window for s in back.steps]
    assert w[back.back] is not None and outside_share(truth[back.back], w[back.back]) == 0
    assert back.steps[back.back - 1].truth is not None or back.back == plan.out + 1   # it comes in over the edge
    assert w[-1] is not None and w[-1][0] < w[len(plan.windows) - 1][0]               # panned back left


def test_a_walk_out_followed_back():
    x = np.concatenate([np.full(40, 20.0), 20.0 + 3 * np.arange(1, 161)])
    truth = np.stack([x, np.full(200, 60.0), np.full(200, 10.0), np.full(200, 10.0)], -1)
    plan = still_plan(truth, (400, 160), fraction=0.25)
    assert plan is not None
    s = walk_script("a", truth, plan, (400, 160), back=True)
    assert s is not None and s.back is not None and s.back > plan.out
    assert s.steps[s.back].truth is not None


def _script(n: int, gone: int, back: int | None, truth_from: int | None) -> Script:
    box = (10.0, 10.0, 20.0, 20.0)
    steps = [Step("a", k, truth=box if k < gone or (truth_from is not None and k >= truth_from) else None)
             for k in range(n)]
    return Script("t", steps, gone, back)


def test_score_counts_founds_off_the_object_as_false_and_times_the_true_one():
    s = _script(60, 20, 40, 40)
    events = [(22, "lost", None), (25, "found", (200.0, 200.0, 20.0, 20.0)),     # not in view: false
              (30, "lost", None), (41, "found", (100.0, 10.0, 20.0, 20.0)),      # in view, elsewhere: false
              (44, "lost", None), (47, "found", (12.0, 10.0, 20.0, 20.0))]       # on it: re-found
    r = score_run(events, s)
    assert not r.lost_before and r.lost
    assert r.false_found == [25, 41]
    assert r.delay == 7 and r.first_false == 3
    assert score_run([(5, "lost", None)], s).lost_before
    assert score_run([(22, "lost", None)], s).delay is None


# --- the tracker on real footage ----------------------------------------------------------------

@pytest.fixture(scope="module")
def clips(request):
    """(truths, frames, size) of named developer clips, decoded once per module."""
    shared_data = request.getfixturevalue("shared_data")
    from sensekit.evaluation.vision.evaluate import frames_of, load_clip

    cache: dict = {}

    def load(*names):
        for name in names:
            if name not in cache:
                c = load_clip(shared_data / "video" / "tracking", name)
                frames = list(frames_of(c))
                cache[name] = (c.truth[:len(frames)], frames)
        truths = {n: cache[n][0] for n in names}
        frames = {n: cache[n][1] for n in names}
        first = frames[names[0]][0]
        return truths, frames, (first.shape[1], first.shape[0])
    return load


@pytest.mark.parametrize("how", ["click", "box"])
@pytest.mark.parametrize("edge", [None, 0.0])
def test_no_color_found_on_another_runner_after_the_sprinter_runs_out(clips, how, edge):
    """bolt1: a still window of half the frame that the sprinter runs out of over its right edge
    (out at frame 134), held for 45 frames after. ``color_lost`` comes as he leaves (frame 124);
    on main, 3 frames later ``color_found`` came on another runner in the same kit in the middle
    of the view (IoU 0 with the sprinter, similarity to the pick 0.84, as high as the sprinter's
    own). An object lost over an edge is now looked for only near that edge
    (``tracker.refind_edge``, 1 box size), so no ``color_found`` comes while he is out of view.
    With ``refind_edge=0`` (looked for everywhere, main's behaviour) it comes, so the test can fail."""
    truths, frames, size = clips("vot_bolt1_rva")
    plan = still_plan(truths["vot_bolt1_rva"], size)
    assert plan is not None
    script = walk_script("vot_bolt1_rva", truths["vot_bolt1_rva"], plan, size, back=False)
    assert script is not None and len(script.steps) == plan.out + 46
    tracker = ColorTracker() if edge is None else ColorTracker(refind_edge=edge)
    r = run_script(tracker, script, frames, size, how)
    assert not r.lost_before and r.lost
    assert (r.false_found == []) == (edge is None), r.founds


@pytest.mark.parametrize("ratio", [None, 0.0])
def test_no_color_found_on_a_magazine_cover_after_a_cut_from_the_motorbike(clips, ratio):
    """The motorbike (similarity to the pick about 0.95 while tracked), a cut to tiger1: on main
    ``color_found`` came 1-3 frames after the cut on a dark magazine cover behind the tiger
    (similarity 0.58-0.61). Found again now needs at least ``tracker.refind_ratio`` (0.7) of the
    object's typical similarity while tracked, so nothing is found in the 45 frames of tiger1;
    with ``refind_ratio=0`` the cover is found, so the test can fail."""
    truths, frames, size = clips("gusot_motorbike_arldemo", "tiger1")
    script = cut_script("gusot_motorbike_arldemo", truths["gusot_motorbike_arldemo"], "tiger1",
                        len(frames["tiger1"]), size)
    assert script is not None
    founds = []
    for how in ("click", "box"):
        r = run_script(ColorTracker() if ratio is None else ColorTracker(refind_ratio=ratio), script, frames,
                       size, how)
        assert not r.lost_before and r.lost
        founds += r.false_found
    assert (founds == []) == (ratio is None), founds


@pytest.mark.parametrize("how", ["click", "box"])
@pytest.mark.parametrize("arm", ["cut to coke and back", "pan right slowly and back", "covered and uncovered"])
def test_the_tiger_is_found_again_when_it_comes_back(clips, how, arm):
    """The control: tiger1, the object goes and comes back (cut to coke for 20 frames and back to
    the tiger's frames as they are by then; panned right at 4 px/frame until out, held 15 frames,
    panned back; a grey card for 20 frames). ``color_lost`` comes, and ``color_found`` on the tiger
    (IoU > 0.3) within 15 frames of it being fully back, with no ``color_found`` elsewhere.
    Measured on main: 0 frames after the cut and the card, 6 and 12 after the pan; here the same."""
    truths, frames, size = clips("tiger1", "coke")
    truth = truths["tiger1"]
    if arm.startswith("cut"):
        script = cut_script("tiger1", truth, "coke", len(frames["coke"]), size, back_after=20)
    elif arm.startswith("pan"):
        plan = pan_plan(truth, size, direction="right", speed_px=4, start=30)
        assert plan is not None
        script = pan_script("tiger1", truth, plan, size, back=True)
    else:
        script = cover_script("tiger1", truth, back=True)
    assert script is not None
    r = run_script(ColorTracker(), script, frames, size, how)
    assert not r.lost_before and r.lost
    assert r.false_found == [], r.founds
    assert r.delay is not None and r.delay <= 15, r.founds
