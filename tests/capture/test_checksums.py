"""Per-frame and per-block checksums in recordings (issue 21): a flipped bit in a segment, a
version-1 ``video.mkv`` or ``audio.wav`` is named by ``inspect`` and never replayed as right;
recordings without checksums still replay; a segment that did not get all its frames onto the
disk is not committed."""
from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.checksums import AUDIO_CRC_HEADER, VIDEO_CRC_HEADER, read_checksums
from sensekit.capture.recording import Recorder, ReplaySource
from sensekit.capture.recording_check import check_recording
from sensekit.capture.video_segments import count_blocks, count_decodable
from sensekit.capture.wav import read_wav_info
from sensekit.errors import RecordingError
from sensekit.runner import checksum
from tests.capture.recording_versions import to_version_1

W, H, FPS, N_FRAMES = 64, 48, 12.0, 24
RATE, BLOCK, N_BLOCKS = 8000, 400, 40


def _frame(i: int) -> np.ndarray:
    rng = np.random.default_rng(i)
    img = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)       # busy: every byte matters
    img[:, :8] = i * 9
    return img


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("crc") / "take.skrec"
    audio = (np.random.default_rng(5).standard_normal(BLOCK * N_BLOCKS + 123) * 0.2).astype(np.float32)
    with Recorder(path, video=(W, H, FPS), audio=(RATE, 1), block_size=BLOCK, start_unix=0.0,
                  fsync=False) as rec:
        items = [VideoFrame(i, i / FPS, _frame(i)) for i in range(N_FRAMES)]
        items += [AudioBlock(k, k * BLOCK / RATE, audio[k * BLOCK:(k + 1) * BLOCK], RATE)
                  for k in range(N_BLOCKS + 1)]                  # the last block is short
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    return path


@pytest.fixture(params=[2, 1], ids=["v2", "v1"])
def rec(request: pytest.FixtureRequest, pristine: Path, tmp_path: Path) -> Path:
    path = Path(shutil.copytree(pristine, tmp_path / "copy.skrec"))
    return to_version_1(path) if request.param == 1 else path


def _video_file(rec: Path) -> Path:
    return rec / "video.mkv" if (rec / "video.mkv").exists() else sorted((rec / "video").glob("*.mkv"))[1]


def _flip(path: Path, *, at: float, bits: int, seed: int = 0) -> None:
    """Flip ``bits`` bits in the middle part of ``path`` (past the headers)."""
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(seed)
    for pos in rng.integers(int(len(data) * at), int(len(data) * at) + 200, size=bits):
        data[pos] ^= 1 << int(rng.integers(0, 8))
    path.write_bytes(bytes(data))


def _mark_incomplete(rec: Path) -> None:
    meta = json.loads((rec / "meta.json").read_text())
    meta["complete"] = False
    (rec / "meta.json").write_text(json.dumps(meta))


def test_the_stored_checksums_are_the_records_checksums(pristine):
    crcs = read_checksums(pristine / "video_crc.csv", VIDEO_CRC_HEADER, complete=True)
    frames = [i for i in ReplaySource(pristine) if isinstance(i, VideoFrame)]
    assert [f"{c:08x}" for c in crcs] == [checksum(f.image) for f in frames]
    blocks = read_checksums(pristine / "audio_crc.csv", AUDIO_CRC_HEADER, complete=True)
    assert len(blocks) == N_BLOCKS + 1                         # the short last block has its row
    report = check_recording(pristine)
    assert report.status == "intact" and not report.problems, report.problems
    assert not any("checksum" in n for n in report.notes)


@pytest.mark.parametrize("bits", [1, 64])
def test_flipped_bits_in_the_video_are_named(rec, bits):
    _flip(_video_file(rec), at=0.6, bits=bits, seed=bits)
    report = check_recording(rec)
    assert report.status == "damaged"
    text = " | ".join(report.problems)
    assert "do not match their checksums" in text or "decode" in text, text
    with pytest.raises(RecordingError, match=r"frame \d+ does not match its checksum|decode|corrupt"):
        list(ReplaySource(rec))


def test_a_corrupt_frame_of_an_incomplete_recording_is_skipped_not_played(rec, caplog):
    _flip(_video_file(rec), at=0.6, bits=1, seed=1)
    _mark_incomplete(rec)
    truth = {checksum(_frame(i)) for i in range(N_FRAMES)}
    with caplog.at_level(logging.WARNING, logger="sensekit.capture.replay"):
        src = ReplaySource(rec)
        frames = [i for i in src if isinstance(i, VideoFrame)]
    assert all(checksum(f.image) in truth for f in frames)     # nothing wrong was played
    assert len(frames) < N_FRAMES
    report = check_recording(rec)
    assert report.status == "damaged" and report.video is not None
    assert report.video.playable_frames == len(frames)
    assert src.stats()["corrupt_frames"] + src.stats()["truncated_frames"] >= N_FRAMES - len(frames)


def _play_three_passes(rec, caplog) -> ReplaySource:
    """``rec`` replayed in a loop until three passes are done, its warnings in ``caplog``; closed."""
    with caplog.at_level(logging.WARNING, logger="sensekit.capture.replay"):
        src = ReplaySource(rec, loop=True)
        it = iter(src)
        while src.loops < 3:
            next(it)
        src.close()
    return src


def test_a_damaged_segment_looped_is_said_in_two_lines_once_not_a_line_a_frame_a_loop(rec, caplog):
    """harden20's sweep: every skipped frame of an incomplete recording was a warning of its own,
    and a looping replay (an installation playing a take for weeks) said them all again each pass
    (the command's rate limit showed 5 lines every 10 s, for ever)."""
    _flip(_video_file(rec), at=0.05, bits=64, seed=3)          # the segment's frames all fail
    _mark_incomplete(rec)
    src = _play_three_passes(rec, caplog)
    skipped = src.stats()["corrupt_frames"]
    said = [r.getMessage() for r in caplog.records]
    assert skipped >= 3 * 2                                     # frames skipped on each pass
    # the first, then the count (and version 1: where decoding stops), once for three passes
    assert len(said) <= 3 and len(set(said)) == len(said), said
    assert len([m for m in said if "of its frames skipped" in m]) <= 1, said


def test_damaged_audio_looped_is_said_once_not_once_a_loop(rec, caplog):
    _flip(rec / "audio.wav", at=0.5, bits=8, seed=2)
    _mark_incomplete(rec)
    src = _play_three_passes(rec, caplog)
    said = [r.getMessage() for r in caplog.records]
    assert src.stats()["corrupt_blocks"] >= 3 and 0 < len(said) == len(set(said)), said
    assert all("do not match their checksum; playing silence there" in m for m in said), said


def test_frames_past_a_cut_checksum_file_are_one_line(rec, caplog):
    path = rec / "video_crc.csv"
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:5]) + b"\n")             # the header and frames 0-3
    _mark_incomplete(rec)
    with caplog.at_level(logging.WARNING, logger="sensekit.capture.replay"):
        src = ReplaySource(rec)
        frames = [i for i in src if isinstance(i, VideoFrame)]
    said = [r.getMessage() for r in caplog.records]
    assert len(frames) == 4 and src.stats()["corrupt_frames"] == N_FRAMES - 4
    assert said == [f"'{_unit_label(rec, 4)}' frame 4 has no checksum ('video_crc.csv' ends at frame 4); "
                    "skipping the frames from there on"], said


def _unit_label(rec: Path, frame: int) -> str:
    if (rec / "video.mkv").exists():
        return f"{rec.name}/video.mkv"
    seg = next(p for p in sorted((rec / "video").glob("*.mkv"))
               if int(p.stem.split("-")[0]) <= frame <= int(p.stem.split("-")[1]))
    return f"{rec.name}/video/{seg.name}"


@pytest.mark.parametrize("bits", [1, 64])
def test_flipped_bits_in_the_audio_are_named(rec, bits):
    info = read_wav_info(rec / "audio.wav")
    data = bytearray((rec / "audio.wav").read_bytes())
    rng = np.random.default_rng(bits)
    at = info.data_offset + 2 * (BLOCK * 7 + 11)               # inside block 7
    for pos in rng.integers(at, at + 2 * 300, size=bits):
        data[pos] ^= 1 << int(rng.integers(0, 8))
    (rec / "audio.wav").write_bytes(bytes(data))
    report = check_recording(rec)
    assert report.status == "damaged"
    assert any(f"samples {BLOCK * 7}-{BLOCK * 8 - 1}" in p for p in report.problems), report.problems
    with pytest.raises(RecordingError, match=f"samples {BLOCK * 7}-{BLOCK * 8 - 1} .* do not match their checksum"):
        list(ReplaySource(rec))
    _mark_incomplete(rec)
    src = ReplaySource(rec)
    blocks = [i for i in src if isinstance(i, AudioBlock)]
    assert len(blocks) == N_BLOCKS + 1 and not blocks[7].samples.any()     # silence, not the damage
    assert src.stats()["corrupt_blocks"] == 1


def test_recordings_without_checksums_still_replay(rec):
    meta = json.loads((rec / "meta.json").read_text())
    for track in ("video", "audio"):
        meta[track].pop("checksums")
    meta["audio"].pop("checksum_block")
    (rec / "meta.json").write_text(json.dumps(meta))
    (rec / "video_crc.csv").unlink()
    (rec / "audio_crc.csv").unlink()
    items = list(ReplaySource(rec))
    assert sum(isinstance(i, VideoFrame) for i in items) == N_FRAMES
    report = check_recording(rec)
    assert report.status == "intact"
    assert any("frames are not verified" in n for n in report.notes)


def test_a_missing_or_damaged_checksum_file_is_named(rec):
    (rec / "video_crc.csv").write_text(VIDEO_CRC_HEADER + "\n0,zzzzzzzz\n")
    with pytest.raises(RecordingError, match="'video_crc.csv' row 2 is invalid"):
        ReplaySource(rec).open()
    (rec / "audio_crc.csv").unlink()
    with pytest.raises(RecordingError, match="missing its checksum file 'audio_crc.csv'"):
        ReplaySource(rec)


def test_a_segment_that_did_not_reach_the_disk_is_not_committed(tmp_path):
    """The second segment is written to /dev/full (every write fails with ENOSPC, which OpenCV's
    writer does not report): it is left uncommitted and the first one stays whole."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    path = tmp_path / "full.skrec"
    rec = Recorder(path, video=(W, H, FPS), fsync=False)
    with pytest.raises(RecordingError, match=r"holds 0 of its \d+ frames after writing .*disk full.*"
                                             r"not committed, the \d+ frames before it are kept"):
        for i in range(N_FRAMES):
            rec.write(VideoFrame(i, i / FPS, _frame(i)))
            if rec.committed_frames and not (path / "video" / f"{rec.committed_frames:06d}.partial.mkv").exists() \
                    and rec.frames == rec.committed_frames:
                os.symlink("/dev/full", path / "video" / f"{rec.committed_frames:06d}.partial.mkv")
    kept = rec.committed_frames
    rec.close(complete=False)
    assert 0 < kept < N_FRAMES
    frames = [i for i in ReplaySource(path) if isinstance(i, VideoFrame)]
    assert [checksum(f.image) for f in frames] == [checksum(_frame(i)) for i in range(kept)]
    assert check_recording(path).status == "incomplete"


def test_the_container_count_agrees_with_the_decoder_on_cut_segments(pristine, tmp_path):
    """The commit check counts frames in the container (a full decode would double the
    recorder's work): on a segment cut anywhere it agrees with what decodes."""
    segment = sorted((pristine / "video").glob("*.mkv"))[1]
    data = segment.read_bytes()
    whole = count_decodable(segment, (W, H))[0]
    assert count_blocks(segment) == whole > 0
    for frac in np.linspace(0.0, 1.0, 41):
        cut = tmp_path / f"cut{frac:.3f}.mkv"
        cut.write_bytes(data[:int(len(data) * frac)])
        assert count_blocks(cut) == count_decodable(cut, (W, H))[0], frac
    assert count_blocks(tmp_path) == 0 and count_blocks(Path("/dev/null")) == 0


def _flip_last_digit_of_row(rec: Path, frame: int) -> float:
    """Flip the low bit of the last digit of ``frame``'s row in ``video_ts.csv`` (a time 1 us
    off that still reads as a valid, increasing time); returns the damaged time."""
    path = rec / "video_ts.csv"
    lines = path.read_bytes().split(b"\n")
    row = bytearray(lines[frame + 1])
    row[-1] ^= 1
    lines[frame + 1] = bytes(row)
    path.write_bytes(b"\n".join(lines))
    return float(row.split(b",")[1])


def test_a_flipped_byte_in_the_timestamps_is_named_not_replayed(rec, caplog):
    damaged = _flip_last_digit_of_row(rec, 10)
    assert abs(damaged - 10 / FPS) < 2e-6                     # a valid time: only a checksum sees it
    report = check_recording(rec)
    assert report.status == "damaged"
    assert any("'video_ts.csv' row 12 (frame 10) does not match its checksum" in p for p in report.problems), \
        report.problems
    with pytest.raises(RecordingError, match=r"'video_ts.csv' row 12 \(frame 10\) does not match its checksum"):
        list(ReplaySource(rec))
    _mark_incomplete(rec)                                      # incomplete: the times before it play
    with caplog.at_level(logging.WARNING, logger="sensekit.capture.replay"):
        frames = [i for i in ReplaySource(rec) if isinstance(i, VideoFrame)]
    # the frames before it (version 2: before the segment that holds it), at their own times
    assert 0 < len(frames) <= 10
    assert [round(f.t, 6) for f in frames] == [round(i / FPS, 6) for i in range(len(frames))]
    assert any("row 12 (frame 10) does not match its checksum" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("frame", [0, 2, 5])
def test_an_incomplete_recording_whose_timestamps_fail_early_plays_the_frames_before(rec, caplog, frame):
    """harden20's sweep (``sensekit events`` on seeded damage): a timestamp row that fails its
    checksum in the first quarter of an incomplete recording cut the timestamps so short that the
    frame checksums (every frame's) were over the cap for the rows left: the replay warned that
    the frames before it play, then refused the whole recording (`'video_crc.csv' holds more
    checksums than the 2 frames 'video_ts.csv' lists`), and ``inspect`` called the frame
    checksums unreadable and the frames unverified."""
    _flip_last_digit_of_row(rec, frame)
    _mark_incomplete(rec)
    with caplog.at_level(logging.WARNING, logger="sensekit.capture.replay"):
        frames = [i for i in ReplaySource(rec) if isinstance(i, VideoFrame)]
    assert len(frames) <= frame
    assert [round(f.t, 6) for f in frames] == [round(i / FPS, 6) for i in range(len(frames))]
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any(f"(frame {frame}) does not match its checksum" in w for w in warned), warned
    assert len(warned) <= 2, warned                         # the damage, and the segments past it
    report = check_recording(rec)
    assert report.status == "damaged" and not any("video_crc.csv" in p for p in report.problems), \
        report.problems
    assert report.video is not None and report.video.unverified is None
    assert report.video.playable_frames == len(frames)


def test_recordings_without_timestamp_checksums_replay_unverified(rec):
    meta = json.loads((rec / "meta.json").read_text())
    assert meta["video"].pop("timestamps_checksums") == "video_ts_crc.csv"
    (rec / "meta.json").write_text(json.dumps(meta))
    (rec / "video_ts_crc.csv").unlink()
    damaged = _flip_last_digit_of_row(rec, 10)
    frames = [i for i in ReplaySource(rec) if isinstance(i, VideoFrame)]
    assert len(frames) == N_FRAMES and frames[10].t == damaged       # as before: not verified
    report = check_recording(rec)
    assert report.status == "intact"
    assert any("frame times are not verified" in n for n in report.notes), report.notes


@pytest.mark.parametrize("keep_bytes", [45, 44 + BLOCK * 2 + 1])
def test_an_incomplete_recording_whose_wav_is_cut_short_plays_its_frames(rec, keep_bytes):
    """harden16's fuzz sweep (every byte boundary of a small recording): an incomplete recording
    whose ``audio.wav`` holds less than a block while its checksums cover every block was refused
    whole (``'audio_crc.csv' is 494 bytes, more than the 63 bytes it may be``), its video with it;
    now its checksum file is capped by the samples the WAV claims, and the frames play."""
    wav = rec / "audio.wav"
    wav.write_bytes(wav.read_bytes()[:keep_bytes])
    _mark_incomplete(rec)
    items = list(ReplaySource(rec))
    frames = [i for i in items if isinstance(i, VideoFrame)]
    samples = sum(len(i.samples) for i in items if isinstance(i, AudioBlock))
    assert [checksum(f.image) for f in frames] == [checksum(_frame(i)) for i in range(N_FRAMES)]
    assert samples == (keep_bytes - 44) // 2
    report = check_recording(rec)
    assert report.video is not None and report.video.playable_frames == N_FRAMES
    assert report.audio is not None and report.audio.playable_samples == samples


def _damage_wav_fmt(rec: Path) -> None:
    data = bytearray((rec / "audio.wav").read_bytes())
    data[0:4] = b"RIFX"                                           # not a RIFF file any more
    (rec / "audio.wav").write_bytes(bytes(data))


def _damage_wav_data_id(rec: Path) -> None:
    data = bytearray((rec / "audio.wav").read_bytes())
    at = data.index(b"data")
    data[at:at + 4] = b"dat\x00"                                  # 'has no data chunk'
    (rec / "audio.wav").write_bytes(bytes(data))


def _damage_crc_header(rec: Path) -> None:
    text = (rec / "audio_crc.csv").read_bytes()
    (rec / "audio_crc.csv").write_bytes(b"blocj" + text[5:])      # one bit of the header line


@pytest.mark.parametrize("damage, named", [(_damage_wav_fmt, "'audio.wav' is not a WAV file"),
                                           (_damage_wav_data_id, "'audio.wav' has no data chunk"),
                                           (_damage_crc_header, "'audio_crc.csv' does not start")],
                         ids=["riff", "data-id", "crc-header"])
def test_an_incomplete_recording_with_a_damaged_audio_header_plays_its_video(rec, caplog, damage, named):
    """harden16's sweep: 317 of 10,797 incomplete copies with damaged audio were refused whole,
    their intact video with them. Now the video plays, every frame as recorded, with one line
    saying the audio is damaged and skipped; ``inspect`` says the same. Complete: still refused."""
    from sensekit.cli.inspect import summary

    damage(rec)
    with pytest.raises(RecordingError, match=named):
        ReplaySource(rec).open()                                  # complete: must be whole
    _mark_incomplete(rec)
    caplog.set_level(logging.WARNING, logger="sensekit")
    src = ReplaySource(rec)
    items = list(src)
    frames = [i for i in items if isinstance(i, VideoFrame)]
    assert [checksum(f.image) for f in frames] == [checksum(_frame(i)) for i in range(N_FRAMES)]
    assert not [i for i in items if isinstance(i, AudioBlock)]
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("sensekit")]
    assert len(lines) == 1, lines
    assert named in lines[0] and "the audio is damaged and skipped, the video plays" in lines[0]
    assert named in (src.stats()["audio_skipped"] or "")
    report = check_recording(rec)
    assert report.video is not None and report.video.playable_frames == N_FRAMES
    assert report.audio is not None and report.audio.playable_samples == 0
    assert report.audio_skipped is not None and named in report.audio_skipped
    text, status = summary(rec)
    assert "plays the video and skips the audio, which is damaged" in text
    assert "no samples play: the audio is damaged" in text
    assert status == 1 and named in text


def test_an_incomplete_audio_only_recording_with_a_damaged_wav_is_still_refused(tmp_path):
    """Nothing would play: the one-line error stays."""
    path = tmp_path / "a.skrec"
    with Recorder(path, audio=(RATE, 1), block_size=BLOCK, start_unix=0.0, fsync=False) as r:
        r.write(AudioBlock(0, 0.0, np.zeros(BLOCK, np.float32), RATE))
    _damage_wav_fmt(path)
    _mark_incomplete(path)
    with pytest.raises(RecordingError, match="'audio.wav' is not a WAV file"):
        list(ReplaySource(path))
