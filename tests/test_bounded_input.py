"""Every file the CLI reads is a regular file of bounded size, every number is short and finite,
and JSON/TOML nesting is bounded: each case of issue 21 is one line on stderr, exit status 2,
and never a traceback, a MemoryError or a hang."""
from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder, ReplaySource
from sensekit.capture.recording_check import check_recording
from sensekit.cli import main
from sensekit.errors import ConfigError, RecordingError
from sensekit.profile import load_profile, loads_profile
from sensekit.safe_read import check_nesting, file_kind, loads_json, read_regular
from tests.unread import reads_of

W, H, FPS, N_FRAMES, RATE, BLOCK = 32, 24, 10.0, 10, 8000, 400


@pytest.fixture(scope="module")
def small_rec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bounded") / "small.skrec"
    audio = (np.random.default_rng(3).standard_normal(8000) * 0.1).astype(np.float32)
    with Recorder(path, video=(W, H, FPS), audio=(RATE, 1), block_size=BLOCK, start_unix=0.0,
                  fsync=False) as rec:
        items = [VideoFrame(i, i / FPS, np.full((H, W, 3), i * 20, np.uint8)) for i in range(N_FRAMES)]
        items += [AudioBlock(k, k * BLOCK / RATE, audio[k * BLOCK:(k + 1) * BLOCK], RATE) for k in range(20)]
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    return path


@pytest.fixture()
def rec(small_rec: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(small_rec, tmp_path / "copy.skrec"))


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str) -> str:
    """Run the CLI in a thread with a time limit; exit status 2 and one line naming ``fragment``."""
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(main(argv)), daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), f"hung: {argv}"
    err = capsys.readouterr().err.strip()
    assert result == [2], err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert fragment in err, err
    return err


# --- profiles ----------------------------------------------------------------------------

def test_profile_from_dev_zero_and_a_fifo(capsys, rec, fifo):
    one_line_error(capsys, ["events", str(rec), "--profile", "/dev/zero"], "is a character device, not a file")
    one_line_error(capsys, ["events", str(rec), "--profile", str(fifo)], "is a FIFO (named pipe), not a file")


def test_taught_gestures_from_a_fifo_and_dev_zero(capsys, rec, fifo):
    """``--gestures`` was read with ``open``/``json.load``: a FIFO hung the start for good and
    ``/dev/zero`` read until memory ran out. (The FIFO first: before the fix it fails there.)"""
    one_line_error(capsys, ["events", str(rec), "--hands", "--gestures", str(fifo)],
                   "taught gestures '" + str(fifo) + "' is a FIFO (named pipe), not a file")
    one_line_error(capsys, ["events", str(rec), "--hands", "--gestures", "/dev/zero"],
                   "taught gestures '/dev/zero' is a character device, not a file")

def test_a_profile_too_large_is_refused_before_reading(tmp_path, capsys, rec, monkeypatch):
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(3 << 30)                      # sparse: 3 GB that take no disk
    with reads_of(big, monkeypatch) as reads:
        one_line_error(capsys, ["events", str(rec), "--profile", str(big)], "is 3 GB, more than the 1 MB")
    assert reads.none                            # refused by its size: not a byte read


@pytest.mark.parametrize("text, fragment", [
    ("[audio]\ngain = 1" + "0" * 400 + "\n", "a number of 401 digits"),
    ("[audio]\ngain = " + "[" * 5000 + "\n", "nested more than 8 levels deep"),
    ("[audio]\ngain = " + "{a=" * 3000 + "\n", "nested more than 8 levels deep"),
    ("[audio]\ngain = 100000000000000000000\n", "`audio.gain` must be a number 0..100"),
    ("[audio]\ngain = nan\n", "`audio.gain` must be a number 0..100, got nan"),
])
def test_profile_numbers_and_nesting(tmp_path, capsys, rec, text, fragment):
    p = tmp_path / "venue.toml"
    p.write_text(text)
    one_line_error(capsys, ["events", str(rec), "--profile", str(p)], fragment)


def test_nesting_check_ignores_strings_and_comments():
    text = '# [[[[[[[[[[\n[motion.zones]\ndoor = [0.0, 0.0, 0.25, 1.0]\n[tracker]\ncolor = "#[[[[[[[[[["\n'
    check_nesting(text, toml=True, what="x")
    assert loads_profile('[tracker]\ncolor = "#ff8000"  # [[[[[[[[[[\n')["tracker.color"] == "#ff8000"


# --- numbers on the command line ---------------------------------------------------------

@pytest.mark.parametrize("argv, fragment", [
    (["events", "{rec}", "--set", "audio.gain=1" + "0" * 400], "`audio.gain` must be a number 0..100"),
    (["events", "{rec}", "--set", "audio.gain=" + "9" * 5000], "`audio.gain` must be a number 0..100"),
    (["events", "{rec}", "--set", "motion.zones=a=0,0," + "1" * 400 + ",1"], "zones"),
    (["events", "{rec}", "--clap", "--pattern-gap-ms", "nan"], "--pattern-gap-ms: must be a number in (0, 60000]"),
    (["events", "{rec}", "--pattern-gap-ms", "inf"], "--pattern-gap-ms: must be a number in (0, 60000]"),
    (["calibrate", "{rec}", "--out", "{tmp}/v.toml", "--seconds", "1e30"], "--seconds: must be a number in (0, 3600]"),
    (["record", "{tmp}/r.skrec", "--source", "{rec}", "--seconds", "1" * 400], "`--seconds` must be positive"),
    (["record", "{tmp}/r.skrec", "--source", "{rec}", "--seconds", "1e30"], "`--seconds` must be 0..1e+07"),
])
def test_numbers_are_checked_before_conversion(capsys, rec, tmp_path, argv, fragment):
    argv = [a.replace("{rec}", str(rec)).replace("{tmp}", str(tmp_path)) for a in argv]
    err = one_line_error(capsys, argv, fragment)
    assert len(err) < 400


# --- recordings --------------------------------------------------------------------------

def test_a_40_gb_timestamps_file_is_refused_before_reading(capsys, rec, monkeypatch):
    with open(rec / "video_ts.csv", "r+b") as f:
        f.truncate(40 << 30)                     # sparse: 40 GB that take no disk
    with reads_of(rec / "video_ts.csv", monkeypatch) as reads:
        one_line_error(capsys, ["events", str(rec)], "'video_ts.csv' is 40 GB, more than the")
        assert main(["inspect", str(rec)]) == 1                  # damaged: the report names it
        out = capsys.readouterr().out
        assert "DAMAGED" in out and "'video_ts.csv' is 40 GB" in out
        with pytest.raises(RecordingError, match="40 GB"):
            ReplaySource(rec).open()
        report = check_recording(rec)
        assert report.status == "damaged" and any("40 GB" in p for p in report.problems)
    assert reads.none                            # each refused it by its size: not a byte read


def test_a_timestamps_file_longer_than_its_frames_allow(rec):
    with open(rec / "video_ts.csv", "a") as f:
        f.write("x" * 100_000 + "\n")
    with pytest.raises(RecordingError, match="more than the"):
        ReplaySource(rec).open()


def test_fifo_and_device_recordings_are_named_for_what_they_are(capsys, fifo):
    one_line_error(capsys, ["inspect", str(fifo)], "is a FIFO (named pipe), not a media file or a recording")
    one_line_error(capsys, ["inspect", "/dev/zero"], "is a character device, not a media file or a recording")
    one_line_error(capsys, ["events", f"replay:{fifo}"], "is a FIFO (named pipe), not a recording folder")
    one_line_error(capsys, ["events", "file:/dev/zero"], "is a character device, not a media file")


@pytest.mark.parametrize("name", ["meta.json", "audio.wav", "video_ts.csv"])
def test_a_fifo_inside_a_recording_is_an_error_not_a_hang(capsys, rec, name):
    (rec / name).unlink()
    os.mkfifo(rec / name)
    one_line_error(capsys, ["events", str(rec)], "is a FIFO (named pipe)")
    one_line_error(capsys, ["inspect", str(rec)], "is a FIFO (named pipe)")


def test_meta_json_nesting_and_constants(rec):
    meta = json.loads((rec / "meta.json").read_text())
    (rec / "meta.json").write_text(json.dumps({**meta, "notes": None}).replace("null", "[" * 5000 + "]" * 5000))
    with pytest.raises(RecordingError, match="nested more than 8 levels deep"):
        ReplaySource(rec)
    text = json.dumps({**meta, "audio_offset_s": 0.0})
    (rec / "meta.json").write_text(text.replace('"audio_offset_s": 0.0', '"audio_offset_s": NaN'))
    with pytest.raises(RecordingError, match="NaN is not a number JSON allows"):
        ReplaySource(rec)


# --- the helpers -------------------------------------------------------------------------

def test_read_regular_and_file_kind(tmp_path, fifo):
    p = tmp_path / "a.txt"
    p.write_bytes(b"x" * 10)
    assert read_regular(p, max_bytes=10, what="a") == b"x" * 10
    with pytest.raises(ConfigError, match="is 11 bytes, more than the 10 bytes"):
        p.write_bytes(b"x" * 11)
        read_regular(p, max_bytes=10, what="a")
    with pytest.raises(ConfigError, match="a folder, not a file"):
        read_regular(tmp_path, max_bytes=10, what="a")
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "none", max_bytes=10, what="a")
    assert file_kind(fifo) == "a FIFO (named pipe)" and file_kind("/dev/null") == "a character device"
    assert file_kind(p) is None and file_kind(tmp_path) is None and file_kind(tmp_path / "none") is None
    with pytest.raises(ConfigError, match="cannot read x: embedded null byte"):
        read_regular("a\0b", max_bytes=1, what="x")


def test_load_profile_missing_is_still_worded_as_before(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_profile(tmp_path / "none.toml")


def test_loads_json_bounds():
    assert loads_json('{"a": [1, [2, {"b": "[[[[[[[[[[[[["}]]}', what="x", max_depth=4) == \
        {"a": [1, [2, {"b": "[[[[[[[[[[[[["}]]}
    for text, fragment in [("[" * 30000, "nested more than 32 levels"), ("1" * 4000, "a number of 4000 digits"),
                           ('{"a": Infinity}', "Infinity is not a number JSON allows"),
                           (b"\xff", "not UTF-8")]:
        with pytest.raises(ConfigError, match=fragment):
            loads_json(text, what="x")
