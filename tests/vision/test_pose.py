"""PoseStage on the real photos and clips in ../shared/data/video/pose (needs the extra).

These run in CI's second venv (``.venv-hands``); in the default install they skip. Measured
as a user gets it:

- the annotated stills: the people found (PCK@0.2 >= 0.5, ``pose_scoring``) >= 0.80 of the 18
  with at least 5 labelled points (the computer render tflitetest_image1 apart), mean PCK >=
  0.70, and more people found than a bare MediaPipe Pose call (static image, full model);
- every pose: 33 x [x, y, z, visibility] in the picture, one id per person of an image;
- a one-person clip: a pose on every frame where bare MediaPipe (video mode) finds one, and
  one id for the whole clip; a two-person clip: both people on >= 80 % of the frames, each
  under one id;
- the same frames twice give the same events (JSON lines), and ``sensekit events STILL
  --pose`` prints them.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

pytestmark = pytest.mark.hands
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')} "
                                        "(CI runs these in .venv-hands)")

from sensekit.capture.base import VideoFrame  # noqa: E402
from sensekit.events import to_jsonl  # noqa: E402
from sensekit.vision.pose import PoseStage, load_pose  # noqa: E402
from sensekit.evaluation.vision.pose_scoring import FOUND_PCK, score_people  # noqa: E402

APART = ("tflitetest_image1",)


def _pose_dir(shared_data: Path) -> Path:
    folder = shared_data / "video" / "pose"
    if not (folder / "annotations").is_dir():
        pytest.skip(f"pose stills not found at {folder}")
    return folder


def _clip(path: Path, n: int) -> list[VideoFrame]:
    cap = cv2.VideoCapture(str(path))
    out = []
    while len(out) < n:
        ok, image = cap.read()
        if not ok:
            break
        out.append(VideoFrame(len(out), len(out) / 30.0, image))
    cap.release()
    return out


@pytest.fixture(scope="module")
def stills(shared_data: Path) -> list[dict]:
    folder = _pose_dir(shared_data)
    mp_pose = load_pose()
    out = []
    for note in sorted((folder / "annotations").glob("*.json")):
        ann = json.loads(note.read_text())
        image = cv2.imread(str(folder / "stills" / Path(ann["image"]).name))
        stage = PoseStage()
        events = stage.process(VideoFrame(0, 0.0, image))
        stage.close()
        with mp_pose.Pose(static_image_mode=True, model_complexity=1) as bare:
            result = bare.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
        h, w = image.shape[:2]
        theirs = [] if result.pose_landmarks is None else \
            [np.array([(p.x * w, p.y * h) for p in result.pose_landmarks.landmark])]
        persons = [p for p in ann["persons"] if p["num_keypoints"] >= 5]
        poses = [e for e in events if e.name == "pose"]
        out.append({"name": note.stem, "shape": image.shape, "poses": poses,
                    "ours": score_people([np.array(e.landmarks) for e in poses], persons),
                    "bare": score_people(theirs, persons)})
    return out


def test_people_found_and_pck_on_the_stills(stills):
    dev = [s for s in stills if s["name"] not in APART]
    ours = np.concatenate([s["ours"] for s in dev])
    bare = np.concatenate([s["bare"] for s in dev])
    print(f"\n{len(ours)} people: found {np.mean(ours >= FOUND_PCK):.2f} (bare {np.mean(bare >= FOUND_PCK):.2f}), "
          f"mean PCK {ours.mean():.2f} (bare {bare.mean():.2f})")
    assert len(ours) == 18
    assert np.mean(ours >= FOUND_PCK) >= 0.80
    assert ours.mean() >= 0.70
    assert np.sum(ours >= FOUND_PCK) > np.sum(bare >= FOUND_PCK)
    apart = [s for s in stills if s["name"] in APART]
    assert all(min(s["ours"]) >= FOUND_PCK for s in apart)


def test_every_pose_is_33_points_in_the_picture_with_its_own_id(stills):
    for s in stills:
        h, w = s["shape"][:2]
        ids = [e.id for e in s["poses"]]
        assert len(ids) == len(set(ids)) and len(ids) >= 1, s["name"]
        for e in s["poses"]:
            pts = np.array(e.landmarks)
            assert pts.shape == (33, 4)
            assert ((pts[:, 3] >= 0) & (pts[:, 3] <= 1)).all()
            x, y, bw, bh = e.box
            assert -0.1 * w <= x and x + bw <= 1.1 * w and -0.1 * h <= y and y + bh <= 1.1 * h, (s["name"], e.box)


def test_one_person_clip_keeps_one_id_and_every_frame_bare_mediapipe_finds(shared_data):
    frames = _clip(_pose_dir(shared_data) / "ntu_drink_water.mp4", 60)
    with load_pose().Pose(static_image_mode=False, model_complexity=1) as bare:
        bare_found = np.array([bare.process(cv2.cvtColor(f.image, cv2.COLOR_BGR2RGB)).pose_landmarks is not None
                               for f in frames])
    stage = PoseStage()
    events = [stage.process(f) for f in frames]
    stage.close()
    found = np.array([any(e.name == "pose" for e in evs) for evs in events])
    assert bare_found.mean() > 0.9
    assert not (bare_found & ~found).any(), np.flatnonzero(bare_found & ~found)
    assert {e.id for evs in events for e in evs if e.name == "pose"} == {1}


def test_two_people_on_a_clip_keep_their_ids(shared_data):
    """ntu_two_person_hug: two men facing each other; both followed, each under one id."""
    frames = _clip(_pose_dir(shared_data) / "ntu_two_person_hug.mp4", 77)
    stage = PoseStage()
    poses = [[e for e in stage.process(f) if e.name == "pose"] for f in frames]
    stage.close()
    two = [p for p in poses if len(p) >= 2]
    assert len(two) >= 0.8 * len(frames), [len(p) for p in poses]
    lefts = {min(p, key=lambda e: e.box[0]).id for p in two}
    rights = {max(p, key=lambda e: e.box[0]).id for p in two}
    assert len(lefts) == 1 and len(rights) == 1 and lefts != rights, (lefts, rights)


def test_same_frames_same_events(shared_data):
    frames = _clip(_pose_dir(shared_data) / "ntu_two_person_hug.mp4", 20)
    runs = []
    for _ in range(2):
        stage = PoseStage(search_every_frames=10)
        runs.append([to_jsonl(e) for f in frames for e in stage.process(f)])
        stage.close()
    assert runs[0] == runs[1] and any('"event":"pose"' in line for line in runs[0])


def test_events_command_on_a_still(shared_data):
    still = _pose_dir(shared_data) / "stills" / "coco_000000040083.jpg"
    r = subprocess.run([sys.executable, "-m", "sensekit", "events", str(still), "--pose", "--jsonl"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    poses = [json.loads(line) for line in r.stdout.splitlines() if '"event":"pose"' in line]
    assert len(poses) == 2 and all(len(p["landmarks"]) == 33 and len(p["landmarks"][0]) == 4 for p in poses)


def test_steps_into_zones_on_a_real_clip(shared_data):
    """basketball_two_players, first 130 frames, through the events command: the player standing
    on the left of the court steps into ``left_court`` at the start; the other walks right, into
    ``right_court`` (their ankles turn visible there at frame ~73) and back out (~116); nobody's
    feet are on the wall (``wall``: the top third)."""
    clip = _pose_dir(shared_data) / "basketball_two_players.mp4"
    zones = "left_court=0,0.78,0.35,0.22;right_court=0.7,0.78,0.3,0.22;wall=0,0,1,0.33"
    r = subprocess.run([sys.executable, "-m", "sensekit", "events", f"file:{clip}", "--pose", "--max-items", "130",
                        "--set", f"pose.zones={zones}", "--jsonl"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    steps = [json.loads(line) for line in r.stdout.splitlines() if '"event":"step"' in line]
    frame = {(s["id"], s["zone"], s["inside"]): round(s["t"] * 30000 / 1001) for s in steps}
    assert not any(s["zone"] == "wall" for s in steps), steps
    left = [s["id"] for s in steps if s["zone"] == "left_court" and s["inside"]]
    right = [s["id"] for s in steps if s["zone"] == "right_court" and s["inside"]]
    assert len(left) == 1 and len(right) == 1 and left != right, steps
    assert frame[(left[0], "left_court", True)] <= 10, steps
    assert 20 <= frame[(right[0], "right_court", True)] <= 100, steps
    assert 100 <= frame[(right[0], "right_court", False)] <= 130, steps


def test_the_skeletons_the_panel_draws_are_the_people_of_this_frame(shared_data):
    from sensekit.panel.tap import pose_meta
    from sensekit.vision.layers import LayerGrabber, offered

    frames = _clip(_pose_dir(shared_data) / "ntu_two_person_hug.mp4", 12)
    stage, grabber = PoseStage(), LayerGrabber()
    assert "pose" in offered([stage])
    for f in frames:
        events = [e for e in stage.process(f) if e.name == "pose"]
        layers = grabber.grab(f.image, [stage], index=f.index)
        assert [i for i, _ in layers.poses] == [e.id for e in events]
        for (_, pts), e in zip(layers.poses, events):
            assert np.array_equal(pts, np.array(e.landmarks))
    stage.close()
    assert len(layers.poses) == 2
    meta = pose_meta(layers.poses)
    assert [m["id"] for m in meta] == [i for i, _ in layers.poses]
    assert all(np.array(m["points"]).shape == (33, 3) for m in meta)
    assert np.allclose(np.array(meta[0]["points"])[:, :2], layers.poses[0][1][:, :2], atol=0.05)
