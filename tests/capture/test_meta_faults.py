"""A damaged ``meta.json`` cannot hide a track, and a damaged ``video.ffconcat`` is reported
(issue 21)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sensekit.capture.base import AudioBlock
from sensekit.capture.recording import ReplaySource
from sensekit.capture.recording_check import check_recording
from sensekit.errors import RecordingError
from tests.capture.clips import make_clip


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_clip(tmp_path_factory.mktemp("meta") / "clip.skrec", frames=14, blocks=12)


@pytest.fixture()
def rec(clip: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(clip, tmp_path / "copy.skrec"))


def _set(rec: Path, **values: object) -> None:
    meta = json.loads((rec / "meta.json").read_text())
    meta.update(values)
    (rec / "meta.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("track, held", [("video", "video, video_ts.csv"), ("audio", "audio.wav")])
def test_a_null_track_that_the_folder_holds_is_an_error(rec, track, held):
    _set(rec, **{track: None})
    with pytest.raises(RecordingError, match=f"`{track}` is null but the recording holds {track} \\({held}"):
        ReplaySource(rec)
    with pytest.raises(RecordingError, match=f"`{track}` is null"):
        check_recording(rec)


def test_a_track_that_was_never_recorded_may_be_null(tmp_path):
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.recording import Recorder

    import numpy as np
    path = tmp_path / "audio_only.skrec"
    with Recorder(path, audio=(8000, 1), block_size=100, fsync=False) as r:
        r.write(AudioBlock(0, 0.0, np.zeros(100, np.float32), 8000))
    assert check_recording(path).status == "intact"


@pytest.mark.parametrize("damage", ["reordered", "line lost", "other file", "garbage", "missing", "header"])
def test_a_damaged_playlist_is_reported(rec, damage):
    playlist = rec / "video.ffconcat"
    lines = playlist.read_text().splitlines()
    assert len(lines) >= 3                                # the header and two segments at least
    if damage == "reordered":
        lines[1], lines[2] = lines[2], lines[1]
    elif damage == "line lost":
        del lines[1]
    elif damage == "other file":
        lines[1] = "file /etc/passwd"
    elif damage == "garbage":
        lines[2] = lines[2][:-3] + "\x00\x01"
    elif damage == "header":
        lines[0] = "ffconcat version 9"
    if damage == "missing":
        playlist.unlink()
    else:
        playlist.write_text("\n".join(lines) + "\n")
    report = check_recording(rec)
    assert report.status == "damaged"
    assert any("'video.ffconcat'" in p for p in report.problems), report.problems
    assert len(list(ReplaySource(rec))) > 0              # replay reads the segments, not the playlist


def test_an_intact_playlist_is_not_a_problem(rec):
    assert check_recording(rec).status == "intact"


@pytest.mark.parametrize("offset", [1e9, 1e308, 71.0, -61.0])
def test_audio_far_from_the_video_is_refused(rec, offset):
    # a damaged audio_offset_s put the audio 30 years after the 1.4 s of video: `sensekit run
    # --headless` on it never ended (it simulated its way towards the audio) and a --realtime
    # replay waited for it
    _set(rec, audio_offset_s=offset)
    with pytest.raises(RecordingError, match=r"^'copy.skrec/meta.json': `audio_offset_s` .* at most 60 s"):
        ReplaySource(rec).open()
    report = check_recording(rec)
    assert report.status == "damaged"
    assert any("`audio_offset_s`" in p for p in report.problems), report.problems


@pytest.mark.parametrize("offset", [-0.05, 0.0, 61.0])
def test_audio_near_the_video_plays(rec, offset):
    # 61 s: 59.6 s after the last frame (1.3 s), within the 60 s a recording's tracks may be apart
    _set(rec, audio_offset_s=offset)
    items = list(ReplaySource(rec))
    blocks = [i for i in items if isinstance(i, AudioBlock)]
    assert blocks and blocks[0].t == pytest.approx(offset)
    assert check_recording(rec).status == "intact"


def test_a_playlist_that_is_a_fifo_is_refused_and_a_key_of_version_1_is_not_read(rec):
    # one list says which files meta.json names (replay's and read_meta's): v2's playlist is
    # one of them; v1's `video.file` is not, so a stray non-name there is ignored (it raised
    # a TypeError from read_meta)
    meta = json.loads((rec / "meta.json").read_text())
    assert meta["version"] == 2
    _set(rec, video={**meta["video"], "file": 5})
    assert len(list(ReplaySource(rec))) > 0
    (rec / "video.ffconcat").unlink()
    os.mkfifo(rec / "video.ffconcat")
    with pytest.raises(RecordingError, match=r"^'copy.skrec/video.ffconcat' is a FIFO \(named pipe\), not a file$"):
        ReplaySource(rec)
