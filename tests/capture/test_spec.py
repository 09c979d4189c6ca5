"""Source specs: parsing every documented form, and the errors for bad ones."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import VideoFrame
from sensekit.capture.recording import Recorder, ReplaySource
from sensekit.capture.spec import SourceSpec, open_source, parse_source_spec
from sensekit.clock import ManualClock
from sensekit.errors import ConfigError, RecordingError, SourceError


@pytest.mark.parametrize("text, kind, target", [
    ("camera", "camera", 0),
    ("camera:0", "camera", 0),
    ("camera:2", "camera", 2),
    ("camera:http://127.0.0.1:8080/stream.mjpg", "camera", "http://127.0.0.1:8080/stream.mjpg"),
    ("camera:/videos/a+b.mp4", "camera", "/videos/a+b.mp4"),
    ("mic", "mic", None),
    ("mic:3", "mic", 3),
    ("mic:USB Audio", "mic", "USB Audio"),
    ("file:clip.wav", "file", "clip.wav"),
    ("replay:take1.skrec", "replay", "take1.skrec"),
    ("FILE:x.mp4", "file", "x.mp4"),
])
def test_parse_kinds(text: str, kind: str, target: object) -> None:
    spec = parse_source_spec(text)
    assert (spec.kind, spec.target) == (kind, target)
    assert str(spec) == text


@pytest.mark.parametrize("text", ["camera:0+mic", "mic+camera:0", "camera:1+mic:usb"])
def test_parse_combined(text: str) -> None:
    spec = parse_source_spec(text)
    assert spec.kind == "combined"
    cam, mic = spec.parts
    assert cam.kind == "camera" and mic.kind == "mic"


def test_bare_paths(tmp_path: Path) -> None:
    rec = tmp_path / "take.skrec"
    with Recorder(rec, video=(8, 8, 5.0)) as r:
        r.write(VideoFrame(0, 0.0, np.zeros((8, 8, 3), np.uint8)))
    media = tmp_path / "clip.wav"
    media.write_bytes(b"RIFF")
    assert parse_source_spec(str(rec)) == SourceSpec("replay", str(rec), str(rec))
    assert parse_source_spec(str(media)).kind == "file"
    assert parse_source_spec(rec).kind == "replay"            # PathLike works too
    src = open_source(rec)
    assert isinstance(src, ReplaySource) and len(list(src)) == 1


@pytest.mark.parametrize("kind", ["file", "camera"])
def test_a_recording_given_as_a_media_file_suggests_replay(tmp_path: Path, kind: str) -> None:
    rec = tmp_path / "take.skrec"
    with Recorder(rec, video=(8, 8, 5.0)) as r:
        r.write(VideoFrame(0, 0.0, np.zeros((8, 8, 3), np.uint8)))
    with pytest.raises(SourceError) as info:
        src = open_source(f"{kind}:{rec}")
        src.open()
    msg = str(info.value)
    assert "is a recording, not a media file" in msg and f"use 'replay:{rec}'" in msg
    (tmp_path / "plain").mkdir()
    with pytest.raises(SourceError, match="'.*plain' is a folder, not a media file"):
        open_source(f"{kind}:{tmp_path / 'plain'}").open()


def test_bare_folder_without_meta_reports_the_recording_error(tmp_path: Path) -> None:
    (tmp_path / "empty.skrec").mkdir()
    with pytest.raises(RecordingError, match="'empty.skrec' has no meta.json"):
        open_source(str(tmp_path / "empty.skrec"))


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "nothing.mp4")
    with pytest.raises(SourceError, match="no such file or recording: '.*nothing.mp4'"):
        parse_source_spec(missing)
    with pytest.raises(SourceError, match="no such media file"):
        open_source(f"file:{missing}")
    with pytest.raises(SourceError, match="no such recording"):
        open_source(f"replay:{tmp_path / 'gone.skrec'}")


@pytest.mark.parametrize(("text", "hint"), [("dmeo", "; did you mean 'demo'?"), ("Demo", "; did you mean 'demo'?"),
                                          ("demo.skrec", "; did you mean 'demo'?"), ("take1", "")])
def test_a_misspelt_bundled_name_is_named_and_the_bundled_ones_listed(text: str, hint: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `sensekit events demo ...` misspelt: the error offered only the spec kinds and
    never said that 'demo' exists."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError) as info:
        parse_source_spec(text)
    assert str(info.value) == (f"no such file or recording: {text!r}{hint} (source specs: 'camera:', 'mic:', "
                               "'file:', 'replay:', 'camera:0+mic', or a path; bundled recordings: demo)")


@pytest.mark.parametrize("text", ["webcam:0", "microphone:2", "screen:1"])
def test_unknown_kind_names_spec_and_lists_kinds(text: str) -> None:
    with pytest.raises(SourceError) as info:
        parse_source_spec(text)
    msg = str(info.value)
    assert repr(text) in msg
    for kind in ("camera:", "mic:", "file:", "replay:"):
        assert kind in msg


def test_bare_url_suggests_camera_prefix() -> None:
    with pytest.raises(SourceError, match="camera:http://host/x"):
        parse_source_spec("http://host/x")


def test_empty_and_non_string_specs() -> None:
    with pytest.raises(SourceError, match="empty source spec"):
        parse_source_spec("  ")
    with pytest.raises(SourceError, match="must be a string"):
        parse_source_spec(3)  # type: ignore[arg-type]
    with pytest.raises(SourceError, match="needs a path"):
        parse_source_spec("file:")


def test_open_source_options(tmp_path: Path) -> None:
    rec = tmp_path / "o.skrec"
    with Recorder(rec, video=(8, 8, 5.0)) as r:
        for i in range(3):
            r.write(VideoFrame(i, i / 5, np.zeros((8, 8, 3), np.uint8)))
    clock = ManualClock()
    src = open_source(f"replay:{rec}", realtime=True, loop=True, clock=clock, width=None, gain=10)
    assert isinstance(src, ReplaySource) and src.realtime and src.loop and src.clock is clock
    with pytest.raises(ConfigError, match="unknown source option.*'speed'"):
        open_source(f"replay:{rec}", speed=2)


def test_bundled_name(recordings_dir: Path) -> None:
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated")
    spec = parse_source_spec("demo")
    assert spec.kind == "replay" and Path(str(spec.target)) == recordings_dir / "demo.skrec"


def test_replay_of_a_bundled_name_plays_it_and_a_near_miss_is_named(recordings_dir: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # `--source replay:demo` was "no such recording: 'demo'", where `--source demo` plays it; and
    # 'replay:demo.skrec' (what the HUD and the panel show as the source) named no bundled one
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated")
    monkeypatch.chdir(tmp_path)
    with open_source("replay:demo") as source:
        assert Path(source.path) == recordings_dir / "demo.skrec"
    with pytest.raises(SourceError) as info:
        open_source("replay:demo.skrec")
    assert str(info.value) == ("no such recording: 'demo.skrec'; did you mean 'demo'? (from spec "
                               "'replay:demo.skrec'; bundled recordings: demo)")
