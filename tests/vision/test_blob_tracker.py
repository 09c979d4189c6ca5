"""BlobTracker: ids, enter/leave, merge and split, fragments, zones, velocity, determinism."""
from pathlib import Path

import numpy as np
import pytest

from sensekit.events import from_jsonl, to_jsonl
from sensekit.vision.blob_tracker import BlobTracker

FPS = 30.0


def frame(*rects, shape=(120, 200)) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for x, y, w, h in rects:
        x, y = int(round(x)), int(round(y))
        m[max(0, y):y + h, max(0, x):x + w] = 255
    return m


def run(masks, **settings):
    bt = BlobTracker(**settings)
    return bt, [bt.update(m, i / FPS) for i, m in enumerate(masks)]


def names(events):
    return [e.name for e in events]


def blobs_of(events):
    (b,) = [e for e in events if e.name == "blobs"]
    return {info.id: info for info in b.blobs}


def test_two_movers_keep_their_ids_and_enter_once():
    masks = [frame((10 + 3 * k, 20, 12, 20), (150 - 2 * k, 70, 14, 24)) for k in range(20)]
    _, out = run(masks, confirm_frames=3)
    assert names(out[0]) == names(out[1]) == ["blobs"]
    assert blobs_of(out[0]) == {}
    enters = [e for ev in out for e in ev if e.name == "blob_enter"]
    assert sorted(e.id for e in enters) == [1, 2]
    assert all(e.t == pytest.approx(2 / FPS) for e in enters)
    a = next(e.id for e in enters if e.cx < 100)          # the one on the left
    b = 3 - a
    for ev in out[2:]:
        seen = blobs_of(ev)
        assert set(seen) == {1, 2}
        assert seen[a].cx < 100 < seen[b].cx
    last = blobs_of(out[-1])
    assert last[a].vx == pytest.approx(3 * FPS, rel=0.05) and abs(last[a].vy) < 1
    assert last[b].vx == pytest.approx(-2 * FPS, rel=0.05)
    assert last[a].box == (10 + 3 * 19, 20, 12, 20) and last[a].area_px == 240


def test_a_blob_that_goes_leaves_after_max_missing_frames():
    masks = [frame((50, 50, 20, 20))] * 5 + [frame()] * 6
    _, out = run(masks, confirm_frames=2, max_missing_frames=3)
    leaves = [(i, e) for i, ev in enumerate(out) for e in ev if e.name == "blob_leave"]
    assert [(i, e.id) for i, e in leaves] == [(5 + 3, 1)]
    assert leaves[0][1].t == pytest.approx(8 / FPS)
    assert leaves[0][1].seconds == pytest.approx(4 / FPS)     # in view on frames 0-4, not until 8
    assert blobs_of(out[5]) == {}


def test_blob_leave_gives_where_the_blob_was_last_seen_not_where_it_coasted_to():
    # a blob walking right at 3 px a frame, then gone: it coasts on for max_missing_frames
    masks = [frame((20 + 3 * k, 50, 20, 20)) for k in range(8)] + [frame()] * 6
    _, out = run(masks, confirm_frames=2, max_missing_frames=4)
    (leave,) = [e for ev in out for e in ev if e.name == "blob_leave"]
    last = blobs_of(out[7])[leave.id]
    assert (leave.cx, leave.cy) == (last.cx, last.cy) == (20 + 3 * 7 + 9.5, 59.5)


def test_a_flicker_shorter_than_confirm_frames_gets_no_id():
    masks = [frame((50, 50, 20, 20))] * 2 + [frame()] * 3 + [frame((10, 10, 20, 20))] * 4
    _, out = run(masks, confirm_frames=3)
    enters = [e for ev in out for e in ev if e.name == "blob_enter"]
    assert [e.id for e in enters] == [1]                # the flicker took no id
    assert enters[0].box == (10, 10, 20, 20)


def test_crossing_people_keep_their_ids_through_the_merge():
    # A walks right, B walks left on the same row; they overlap for several frames and part
    masks = [frame((20 + 4 * k, 40, 16, 40), (164 - 4 * k, 40, 16, 40)) for k in range(37)]
    _, out = run(masks, join_px=0)
    merged = [i for i, ev in enumerate(out) if blobs_of(ev) and len(blobs_of(ev)) == 1]
    assert merged, "the two blobs should merge for a while"
    final = blobs_of(out[-1])
    assert set(final) == {1, 2}
    a = next(e for ev in out for e in ev if e.name == "blob_enter" and e.cx < 100).id
    assert final[a].cx > 100                             # A is now on the right, same id
    assert final[3 - a].cx < 100
    assert not [e for ev in out for e in ev if e.name == "blob_leave"]


def test_a_fragment_inside_a_tracked_blob_stays_part_of_it():
    whole = [frame((40 + 2 * k, 30, 20, 40)) for k in range(8)]
    # for a few frames the middle rows drop out of the mask: two pieces inside the predicted box
    split = [frame((56 + 2 * k, 30, 20, 22), (56 + 2 * k, 56, 20, 14)) for k in range(3)]
    again = [frame((62 + 2 * k, 30, 20, 40)) for k in range(3)]
    _, out = run(whole + split + again, join_px=0)
    assert [e.id for ev in out for e in ev if e.name == "blob_enter"] == [1]
    for k, ev in enumerate(out[8:11]):
        seen = blobs_of(ev)
        assert list(seen) == [1]
        assert seen[1].box == (56 + 2 * k, 30, 20, 40) and seen[1].area_px == 20 * 36
    assert list(blobs_of(out[-1])) == [1]


def test_zone_enter_and_leave_follow_the_centroid():
    masks = [frame((10 + 8 * k, 50, 14, 14)) for k in range(20)]
    bt = BlobTracker(confirm_frames=1, zones={"door": (80, 0, 40, 120)})
    events = [(i, e) for i, m in enumerate(masks) for e in bt.update(m, i / FPS)
              if e.name in ("zone_enter", "zone_leave")]
    assert [(e.name, e.zone, e.id) for _, e in events] == [("zone_enter", "door", 1), ("zone_leave", "door", 1)]
    (i_in, _), (i_out, _) = events
    assert 10 + 8 * i_in + 6.5 >= 80 > 10 + 8 * (i_in - 1) + 6.5
    assert 10 + 8 * i_out + 6.5 >= 120 > 10 + 8 * (i_out - 1) + 6.5


def test_same_masks_same_events_and_jsonl_round_trip():
    rng = np.random.default_rng(3)
    masks = []
    for k in range(25):
        rects = [(20 + 3 * k + int(rng.integers(0, 2)), 30, 15, 25), (140 - 2 * k, 60, 18, 30)]
        masks.append(frame(*rects))
    _, a = run(masks)
    _, b = run(masks)
    lines_a = [to_jsonl(e) for ev in a for e in ev]
    assert lines_a == [to_jsonl(e) for ev in b for e in ev]
    assert [to_jsonl(from_jsonl(line)) for line in lines_a] == lines_a


def test_settings_apply_on_the_next_frame():
    bt = BlobTracker()
    bt.apply(min_area_px=1000)
    assert bt.update(frame((0, 0, 20, 20)), 0.0)[0].count == 0
    assert bt.min_area_px == 1000
    assert not bt.tracks


def test_events_blobs_on_a_replay_gives_the_same_ids_every_run(recordings_dir, capsys):
    import json

    from sensekit.cli import main

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    runs = []
    for _ in range(2):
        assert main(["events", str(demo), "--blobs", "--jsonl", "--max-items", "240"]) == 0
        runs.append([line for line in capsys.readouterr().out.splitlines() if line.startswith("{")])
    assert runs[0] == runs[1]
    events = [json.loads(line) for line in runs[0]]
    names = {e["event"] for e in events}
    assert "motion" not in names                       # --blobs alone: blob events only
    blobs = [e for e in events if e["event"] == "blobs"]
    assert blobs and any(e["count"] for e in blobs)
    entered = [e["id"] for e in events if e["event"] == "blob_enter"]
    assert entered == sorted(entered) and entered[0] == 1
    seen = {b["id"] for e in blobs for b in e["blobs"]}
    assert seen <= set(entered)
    first = next(b for e in blobs for b in e["blobs"])
    assert set(first) == {"id", "box", "cx", "cy", "area_px", "vx", "vy"}


@pytest.mark.slow
def test_cdnet_highway_held_back_half_beats_mog2_contours(shared_data):
    """benchmarks/blob_eval.py has the table and the choice of the constants on the first half."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import blob_eval as be
    from sensekit.evaluation.vision.motion_scoring import load_cdnet

    clip = load_cdnet(shared_data / "video" / "motion" / "cdnet_highway_a")
    truth = be.truth_objects(clip.truths, clip.roi)
    ours = be.score(truth, be.track(be.sensekit_masks(clip)), clip.roi, be.SECOND)
    base = be.score(truth, be.baseline(clip), clip.roi, be.SECOND)
    assert ours["F1"] >= base["F1"] + 0.15, (ours, base)
    assert ours["MOTA"] >= base["MOTA"] + 0.15, (ours, base)
    assert ours["IDSW"] <= base["IDSW"] // 2, (ours, base)
    assert ours["count1"] >= 0.95, ours
