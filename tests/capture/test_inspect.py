"""``sensekit inspect``: it counts what really decodes, names the damage, exits non-zero on it,
and prints text from the recording safely.

Each damage is made on a copy of a small recording (or of the bundled demo, a
version 1 recording) and ``inspect`` runs through the real CLI entry point. No
run may change a file of the recording.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder, ReplaySource
from sensekit.cli import main as cli_main
from sensekit.errors import RecordingError
from tests.capture.recording_versions import to_version_1

W, H, FPS, RATE = 32, 24, 10.0, 8000


def make(path: Path, frames: int = 25, notes: str = "a clip") -> Path:
    with Recorder(path, video=(W, H, FPS), audio=(RATE, 1), block_size=400, notes=notes,
                  start_unix=0.0, sources=["test"]) as rec:
        items = [VideoFrame(i, i / FPS, np.full((H, W, 3), i * 9, np.uint8)) for i in range(frames)]
        items += [AudioBlock(k, k * 0.05, np.full(400, k / 100, np.float32), RATE)
                  for k in range(frames // 2)]
        for item in sorted(items, key=lambda it: it.t):
            rec.write(item)
    return path


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def inspect(capsys: pytest.CaptureFixture, rec: Path, *args: str) -> tuple[int, str, str]:
    before = digest(rec) if rec.is_dir() else None
    capsys.readouterr()
    code = cli_main(["inspect", str(rec), *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert before is None or digest(rec) == before, "inspect changed the recording"
    return code, out, err


def flat(text: str) -> str:
    """The report with line wrapping undone (problems are wrapped at 76 columns)."""
    return " ".join(text.replace("\n  ", " ").split())


def segments(rec: Path) -> list[Path]:
    return sorted((rec / "video").glob("*-*.mkv"))


def set_meta(rec: Path, **changes: object) -> None:
    meta = json.loads((rec / "meta.json").read_text())
    meta.update(changes)
    (rec / "meta.json").write_text(json.dumps(meta))


def test_an_intact_recording_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, out, _ = inspect(capsys, make(tmp_path / "ok.skrec"))
    assert code == 0 and "ok.skrec  (complete)" in out and "problems" not in out
    assert "32x24 @ 10 fps, FFV1, 25 frames" in out and "video/ 5 segments" in out
    code, out, _ = inspect(capsys, tmp_path / "ok.skrec", "--quick")
    assert code == 0 and "25 frames listed, not decoded (--quick)" in out


def test_an_all_zero_video_mkv_is_damage(tmp_path: Path, recordings_dir: Path,
                                         capsys: pytest.CaptureFixture) -> None:
    rec = tmp_path / "demo.skrec"
    shutil.copytree(recordings_dir / "demo.skrec", rec)          # version 1: one video.mkv
    video = rec / "video.mkv"
    video.write_bytes(bytes(video.stat().st_size))
    code, out, _ = inspect(capsys, rec)
    assert code == 1 and "DAMAGED" in out
    assert "0 of 300 listed frames decode" in flat(out)
    assert "demo.skrec/video.mkv' cannot be opened as video" in flat(out)


def test_an_all_zero_segment_is_named(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rec = make(tmp_path / "z.skrec")
    seg = segments(rec)[1]
    first, last = (int(x) for x in seg.name[:-4].split("-"))
    seg.write_bytes(bytes(seg.stat().st_size))
    code, out, _ = inspect(capsys, rec)
    assert code == 1 and "DAMAGED" in out
    n = last - first + 1
    assert f"'z.skrec/video/{seg.name}' ({n} frames) cannot be opened as video" in flat(out)
    assert f"{25 - n} of 25 listed frames decode" in out and "stops with an error" in out


def test_a_truncated_segment_of_a_version_1_and_2_recording(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    rec = make(tmp_path / "t.skrec")
    seg = segments(rec)[-1]
    seg.write_bytes(seg.read_bytes()[: seg.stat().st_size // 2])
    code, out, _ = inspect(capsys, rec)
    assert code == 1 and seg.name in out and "DAMAGED" in out
    rec1 = to_version_1(make(tmp_path / "t1.skrec"))
    (rec1 / "video.mkv").write_bytes((rec1 / "video.mkv").read_bytes()[:2000])
    code, out, _ = inspect(capsys, rec1)
    assert code == 1 and "t1.skrec/video.mkv" in out and "listed frames decode" in out


def test_a_wav_header_claiming_2_gb_is_not_believed(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    rec = make(tmp_path / "w.skrec")
    wav = rec / "audio.wav"
    data = bytearray(wav.read_bytes())
    held = (len(data) - 44) // 2
    claim = 2_000_000_000
    data[4:8] = struct.pack("<I", 36 + claim)
    data[40:44] = struct.pack("<I", claim)
    wav.write_bytes(bytes(data))
    code, out, _ = inspect(capsys, rec)
    assert code == 1 and "DAMAGED" in out
    assert f"its header claims {claim // 2} samples per channel, meta.json says {held}" in flat(out)
    audio_line = next(line for line in out.splitlines() if line.startswith("audio"))
    assert str(claim // 2) not in audio_line
    # an incomplete recording plays what the file holds, and says the header lies
    set_meta(rec, complete=False)
    code, out, _ = inspect(capsys, rec)
    assert code == 1 and f"but the file holds only {held}" in flat(out)
    assert f"{held} samples" in next(line for line in out.splitlines() if line.startswith("audio"))
    blocks = [b for b in ReplaySource(rec) if isinstance(b, AudioBlock)]
    assert sum(len(b.samples) for b in blocks) == held


def test_text_from_the_recording_cannot_drive_the_terminal(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    notes = "red \x1b[31mALERT\x1b[0m\rover\x08written \u202eevil\x07\nsecond line"
    rec = make(tmp_path / "n.skrec", notes=notes)
    set_meta(rec, sources=["cam\x1b]0;title\x07"])
    (rec / "odd\x1bname.txt").write_text("x")
    code, out, _ = inspect(capsys, rec)
    assert code == 0
    assert not any(ch in out for ch in "\x1b\r\x08\x07\u202e")
    assert "red \\x1b[31mALERT\\x1b[0m\\x0dover\\x08written \\u202eevil\\x07" in out
    assert "second line" in out and "cam\\x1b]0;title\\x07" in out and "odd\\x1bname.txt" in out


def test_a_start_time_that_is_no_date(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rec = make(tmp_path / "d.skrec")
    set_meta(rec, start_unix=1e20)
    code, out, err = inspect(capsys, rec)
    assert code == 1 and "start_unix 1e+20 is not a date" in flat(out) and err == ""


def test_a_killed_recording_is_incomplete_and_counts_what_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rec = make(tmp_path / "k.skrec")
    set_meta(rec, complete=False)
    last = segments(rec)[-1]
    last.rename(last.with_name(f"{last.name.split('-')[0]}.partial.mkv"))    # never committed
    code, out, _ = inspect(capsys, rec)
    assert code == 1 and "INCOMPLETE" in out and "DAMAGED" not in out
    replayed = [f for f in ReplaySource(rec) if isinstance(f, VideoFrame)]
    assert f"{len(replayed)} of 25 listed frames decode and play" in out
    assert "unfinished segment" in flat(out) and "were never committed" in flat(out)


def test_not_a_recording_is_status_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "x.skrec").mkdir()
    code, _, err = inspect(capsys, tmp_path / "x.skrec")
    assert code == 2 and "has no meta.json" in err


@pytest.mark.parametrize("gone", ["video_ts.csv", "video_ts_crc.csv", "video_crc.csv"])
def test_a_missing_file_is_the_one_problem_named(tmp_path: Path, capsys: pytest.CaptureFixture, gone: str) -> None:
    """A recording folder missing one file: inspect names that file and blames no intact one. It
    said 'video_crc.csv' is 3.7 kB, more than the 63 bytes it may be' when the timestamps were
    unreadable, and that every frame did 'not match its checksum' when video_crc.csv was gone."""
    rec = make(tmp_path / "miss.skrec")
    (rec / gone).unlink()
    code, out, _ = inspect(capsys, rec)
    problems = flat(out.split("\nproblems", 1)[1].split("\nreplay ", 1)[0])
    assert code == 1 and f"'{gone}' is missing" in problems, out
    assert "may be" not in problems and "do not match" not in problems, out
    assert problems.count(" - ") == 0 and problems.strip().startswith("- "), out


def test_frames_past_the_checksums_are_said_to_have_none(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A complete recording whose video_crc.csv lost its last rows: those frames have no
    checksum (they were said not to match theirs)."""
    rec = make(tmp_path / "short.skrec")
    rows = (rec / "video_crc.csv").read_text().splitlines()
    (rec / "video_crc.csv").write_text("\n".join(rows[:-3]) + "\n")
    code, out, _ = inspect(capsys, rec)
    problems = flat(out.split("\nproblems", 1)[1].split("\nreplay ", 1)[0])
    assert code == 1 and "'video_crc.csv' lists 22 checksums for 25 frames" in problems, out
    assert "frame(s) 22, 23, 24 have no checksum in 'video_crc.csv'" in problems, out
    assert "do not match" not in problems, out


def test_the_files_line_is_wrapped_between_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The files line of a version 2 recording ran to ~170 columns (every other field wraps at 76);
    it wraps between files, never inside one."""
    code, out, _ = inspect(capsys, make(tmp_path / "ok.skrec"))
    start = out.index("\nfiles ") + 1
    block = out[start:out.index("\nsize ")].splitlines()
    assert code == 0 and len(block) >= 2 and all(len(line) <= 11 + 77 for line in block), block
    assert all(line.startswith(" " * 11) for line in block[1:]), block
    files = " ".join(line.strip() for line in block)[len("files "):].strip().split(", ")
    assert [f.split(" ")[0] for f in files] == ["audio.wav", "audio_crc.csv", "meta.json", "video/", "video.ffconcat",
                                                "video_crc.csv", "video_ts.csv", "video_ts_crc.csv"], files


@pytest.mark.parametrize("complete", [True, False])
def test_frames_without_their_checksum_file_decode_unverified_and_replay_refuses(
        tmp_path: Path, capsys: pytest.CaptureFixture, complete: bool) -> None:
    """video_crc.csv gone: the frames still decode, so inspect counts them ('all 25 listed
    frames decode, not verified'), not '0 of 25 listed frames decode'; and it says what replay
    does with the recording, complete or not: refuses to open it, naming the same file."""
    rec = make(tmp_path / "nocrc.skrec")
    (rec / "video_crc.csv").unlink()
    if not complete:
        set_meta(rec, complete=False)
    code, out, _ = inspect(capsys, rec)
    text = flat(out)
    assert code == 1 and "all 25 listed frames decode, not verified: 'video_crc.csv' is missing" in text, out
    assert "0 of 25" not in text, out
    with pytest.raises(RecordingError) as err:
        ReplaySource(rec)
    assert "checksum file 'video_crc.csv'" in str(err.value)
    assert "replay refuses to open it: it is missing its checksum file 'video_crc.csv'" in text, out


def test_times_without_their_checksum_file_are_read_unverified(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    """video_ts_crc.csv gone: the frames and their times are still there; inspect counts and
    checks the frames ('25 frames; their times not verified') where it said '0 frames'."""
    rec = make(tmp_path / "notscrc.skrec")
    (rec / "video_ts_crc.csv").unlink()
    code, out, _ = inspect(capsys, rec)
    text = flat(out)
    assert code == 1 and "25 frames; their times not verified: 'video_ts_crc.csv' is missing" in text, out
    assert "replay refuses to open it: it is missing its timestamps checksum file 'video_ts_crc.csv'" in text, out
    assert "duration 2.500 s" in text, out


def test_frames_without_their_timestamps_file_are_not_said_to_be_none(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """video_ts.csv gone: the video line said '0 frames' (the video holds 25); it says why they
    are not counted."""
    rec = make(tmp_path / "nots.skrec")
    (rec / "video_ts.csv").unlink()
    code, out, _ = inspect(capsys, rec)
    text = flat(out)
    said = "frames not counted: the timestamps file 'video_ts.csv' that lists them is missing"
    assert code == 1 and said in text, out
    assert " 0 frames" not in text, out


def test_a_missing_wav_is_not_said_to_hold_0_samples(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rec = make(tmp_path / "nowav.skrec")
    (rec / "audio.wav").unlink()
    code, out, _ = inspect(capsys, rec)
    text = flat(out)
    assert code == 1 and "no samples: the audio file 'audio.wav' is missing" in text, out
    assert "0 samples" not in text, out


def test_replay_of_emptied_timestamps_names_the_recording_and_both_files(tmp_path: Path) -> None:
    """An incomplete recording whose video_ts.csv was emptied: replay said only "'video_crc.csv'
    is 290 bytes, more than the 63 bytes it may be" (no recording, and it blamed the intact file;
    tests/test_recording_fuzz.py found it)."""
    rec = make(tmp_path / "emptied.skrec")
    set_meta(rec, complete=False)
    (rec / "video_ts.csv").write_bytes(b"")
    with pytest.raises(RecordingError) as err:
        ReplaySource(rec).open()
    text = str(err.value)
    assert text.startswith("'emptied.skrec/video_crc.csv' holds more checksums than the 0 frames 'video_ts.csv'"), text


def test_a_missing_recording_is_answered_with_what_inspect_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture) -> None:
    """`sensekit inspect nosuch` listed the source specs ('camera:', 'mic:', ...) that inspect
    cannot read; it now says what it reads (a recording folder, or a bundled name)."""
    monkeypatch.chdir(tmp_path)
    assert cli_main(["inspect", "nosuch"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("sensekit: error: no such recording: 'nosuch' (a recording folder such as take1.skrec, "
                   "made by `sensekit record`, or a bundled one: demo)"), err
    assert cli_main(["inspect", "demoo"]) == 2
    assert "no such recording: 'demoo'; did you mean 'demo'? (a recording folder" in capsys.readouterr().err


def test_a_camera_lost_while_recording_is_named_as_a_stretch_with_no_frame(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """harden20: ``sensekit record`` from an MJPEG stream whose server stopped for 2 s kept
    recording (lost, reconnected, restored) and ``inspect`` said only "complete" and a frame rate
    of half the camera's (the mean over the gap): the 3.8 s with no frame were named nowhere, as
    the audio's gaps are (``audio_gaps``). Frames at 10 fps with 3 s and 1.5 s missing."""
    times = [i / FPS for i in range(10)] + [4.0 + i / FPS for i in range(10)] + [6.4 + i / FPS for i in range(5)]
    path = tmp_path / "lost.skrec"
    with Recorder(path, video=(W, H, FPS), start_unix=0.0, sources=["test"]) as rec:
        for i, t in enumerate(times):
            rec.write(VideoFrame(i, t, np.full((H, W, 3), i * 9, np.uint8)))
    code, out, _ = inspect(capsys, path)
    assert code == 0 and "(complete)" in out                 # a gap is no damage: the replay keeps it
    assert "no frame in 2 stretches, 4.600 s in all (the longest 3.100 s at 0.900 s; the camera lost " \
           "while recording?)" in flat(out), out
    code, out, _ = inspect(capsys, make(tmp_path / "ok.skrec"))
    assert "no frame" not in out                             # a steady recording: nothing said
