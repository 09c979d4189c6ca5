"""Venue profiles: schema, errors that name key/file/line, and a writer that round-trips."""
from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sensekit.errors import ConfigError
from sensekit.profile import (Profile, dumps_profile, find_line, load_profile, loads_profile,
                              save_profile)

FULL = """\
# my venue
[color]
target = "#E03C28"
tolerance = 15

[motion]
threshold = 30.5
noise_floor = 4.25

[motion.zones]
left = [0.0, 0.0, 0.5, 1.0]
"top right" = [0.5, 0, 0.5, 0.5]

[audio]
gain = 62.5
threshold = 20
timeout_ms = 250
noise_floor = 3.5
"""


def test_defaults():
    p = Profile()
    assert p.color.target is None and p.color.tolerance == 12.0
    assert p.motion.threshold is None and p.motion.zones == {}
    assert (p.audio.gain, p.audio.threshold, p.audio.timeout_ms) == (50.0, 25.0, 500.0)
    assert loads_profile("") == p


def test_full_profile_loads_with_types(tmp_path: Path):
    f = tmp_path / "venue.toml"
    f.write_text(FULL)
    p = load_profile(f)
    assert p.color.target == "#e03c28"
    assert p.color.tolerance == 15.0 and isinstance(p.color.tolerance, float)
    assert p.motion.threshold == 30.5 and p.motion.noise_floor == 4.25
    assert p.motion.zones == {"left": (0.0, 0.0, 0.5, 1.0), "top right": (0.5, 0.0, 0.5, 0.5)}
    assert list(p.motion.zones) == ["left", "top right"]
    assert (p.audio.gain, p.audio.threshold, p.audio.timeout_ms, p.audio.noise_floor) == \
        (62.5, 20.0, 250.0, 3.5)


def test_save_then_load_is_identity(tmp_path: Path):
    p = loads_profile(FULL)
    out = save_profile(p, tmp_path / "sub" / "venue.toml")
    assert load_profile(out) == p
    assert not [x for x in out.parent.iterdir() if x.name != "venue.toml"], "temp file left behind"


def _replace(old: str, new: str) -> str:
    assert old in FULL
    return FULL.replace(old, new)


@pytest.mark.parametrize("text,line,fragments", [
    (_replace("gain = 62.5", "gian = 62.5"), 15, ["unknown key `audio.gian`", "gain, noise_floor"]),
    (_replace("gain = 62.5", "gain = 150"), 15, ["`audio.gain`", "0..100", "150"]),
    (_replace("gain = 62.5", 'gain = "loud"'), 15, ["`audio.gain`", "'loud'"]),
    (_replace("gain = 62.5", "gain = true"), 15, ["`audio.gain`", "True"]),
    (_replace("gain = 62.5", "gain = nan"), 15, ["`audio.gain`", "nan"]),
    (_replace('target = "#E03C28"', 'target = "red"'), 3, ["`color.target`", "#RRGGBB", "'red'"]),
    (_replace("tolerance = 15", "tolerance = -1"), 4, ["`color.tolerance`", "-1"]),
    (_replace("threshold = 30.5", "threshold = 256"), 7, ["`motion.threshold`", "256"]),
    (_replace("threshold = 30.5", "threshold = 0"), 7, ["`motion.threshold`", "1..255"]),
    (_replace("tolerance = 15", "tolerance = 181"), 4, ["`color.tolerance`", "0..180"]),
    (_replace('"top right" = [0.5, 0, 0.5, 0.5]', '"top right" = [0.5, 0, 0.6, 0.5]'), 12,
     ["`motion.zones.top right`", "inside the frame"]),
    (_replace("left = [0.0, 0.0, 0.5, 1.0]", "left = [0.0, 0.0, 0.5]"), 11,
     ["`motion.zones.left`", "[x, y, w, h]"]),
    (_replace("[motion.zones]", "[motion.zone]"), 10, ["unknown key `motion.zone`"]),
    (_replace("[audio]", "[sound]"), 14, ["unknown key `sound`", "color, motion, audio"]),
    (_replace("timeout_ms = 250", "timeout_ms = 250\ncolour = 1"), 18, ["`audio.colour`"]),
    (_replace("noise_floor = 4.25", "noise_floor = 4.25 ="), 8, ["not valid TOML"]),
    (FULL + "[motion]\nzones = 3\n", None, None),  # duplicate table: TOML error
])
def test_errors_name_key_file_and_line(tmp_path: Path, text, line, fragments):
    f = tmp_path / "venue.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_profile(f)
    msg = str(info.value)
    assert msg.startswith(str(f))
    if line is not None:
        assert msg.startswith(f"{f}:{line}: "), msg
    for frag in fragments or []:
        assert frag in msg, msg


def test_missing_and_unreadable_files(tmp_path: Path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_profile(tmp_path / "nope.toml")
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"[color]\ntarget = \"\xe9\"\n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_profile(bad)


def test_find_line_handles_dotted_inline_and_quoted_keys():
    text = 'a.b = 1\n[x]\ny.z = 2\nzones = { q = [1] }\n["sp ace"]\n"k" = 3\n'
    assert find_line(text, "a.b") == 1
    assert find_line(text, "x.y.z") == 3
    assert find_line(text, "x.zones.q") == 4   # inside an inline table: the line that holds it
    assert find_line(text, "sp ace.k") == 6
    assert find_line(text, "x.nothing") == 2   # unknown key: its table's line
    assert find_line(text, "nothing") is None


def test_validate_rejects_bad_values_set_in_code():
    p = Profile()
    p.audio.gain = 101
    with pytest.raises(ConfigError, match="audio.gain"):
        p.validate()
    with pytest.raises(ConfigError, match="audio.gain"):
        dumps_profile(p)


# --- round trip of arbitrary valid profiles ------------------------------------------

unit = st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False)


@st.composite
def zones(draw):
    x, y = draw(unit), draw(unit)
    w = draw(st.floats(1e-6, 1.0)) * (1.0 - x) or 1e-6
    h = draw(st.floats(1e-6, 1.0)) * (1.0 - y) or 1e-6
    if x + w > 1.0 or y + h > 1.0 or w <= 0 or h <= 0:
        x, y, w, h = 0.0, 0.0, 0.5, 0.5
    return (x, y, w, h)


@st.composite
def profiles(draw):
    p = Profile()
    p.color.target = draw(st.none() | st.from_regex(r"#[0-9a-f]{6}", fullmatch=True))
    p.color.tolerance = draw(st.floats(0, 180))
    p.motion.threshold = draw(st.none() | st.floats(1, 255))
    p.motion.noise_floor = draw(st.none() | st.floats(0, 255))
    names = draw(st.lists(st.text(string.printable.translate(str.maketrans("", "", ",;=")) + "éß✓\x7f",
                                  min_size=1, max_size=8).filter(str.strip),
                          unique=True, max_size=4))
    p.motion.zones = {n: draw(zones()) for n in names}
    p.audio.gain = draw(st.floats(0, 100))
    p.audio.threshold = draw(st.floats(0, 100))
    p.audio.timeout_ms = draw(st.floats(0, 60000))
    p.audio.noise_floor = draw(st.none() | st.floats(0, 100))
    return p


@settings(max_examples=150, deadline=None)
@given(profiles())
def test_round_trip(p: Profile):
    assert loads_profile(dumps_profile(p)) == p.validate()


def test_derived_motion_threshold_and_pixel_zones():
    p = Profile()
    assert p.motion_threshold() is None
    p.motion.noise_floor = 1.0
    assert p.motion_threshold() == 8           # 5 x 1.0 clamped up to the detector's minimum
    p.motion.noise_floor = 4.0
    assert p.motion_threshold() == 20
    p.motion.noise_floor = 40.0
    assert p.motion_threshold() == 96          # clamped down
    p.motion.threshold = 30.4
    assert p.motion_threshold() == 30          # an explicit threshold wins
    p.motion.zones = {"door": (0.0, 0.0, 0.25, 1.0), "tiny": (0.999, 0.999, 0.001, 0.001)}
    assert p.zones_px(320, 240) == {"door": (0, 0, 80, 240), "tiny": (319, 239, 1, 1)}


# --- sensekit calibrate ----------------------------------------------------------------

def _noisy_recording(path: Path, *, pixel_sigma: float, audio_rms: float, seconds: float = 2.0,
                     fps: float = 10.0, rate: int = 8000) -> Path:
    """A recording of a static grey scene with Gaussian pixel noise and white audio noise,
    and an orange square at (40..60, 20..40)."""
    import numpy as np

    from sensekit.capture.base import AudioBlock, VideoFrame
    from sensekit.capture.recording import Recorder

    rng = np.random.default_rng(3)
    base = np.full((60, 80, 3), 100.0)
    base[20:40, 40:60] = (0, 128, 255)           # BGR orange
    items = []
    for i in range(int(seconds * fps)):
        img = np.clip(np.rint(base + rng.normal(0, pixel_sigma, base.shape)), 0, 255)
        img[20:40, 40:60] = (0, 128, 255)
        items.append(VideoFrame(i, i / fps, img.astype(np.uint8)))
    block = 400
    for k in range(int(seconds * rate) // block):
        s = (rng.standard_normal(block) * audio_rms).astype(np.float32)
        items.append(AudioBlock(k, k * block / rate, s, rate))
    with Recorder(path, video=(80, 60, fps), audio=(rate, 1), block_size=block, fsync=False) as rec:
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    return path


def test_calibrate_learns_noise_floors_and_a_colour(tmp_path: Path, capsys):
    from sensekit.audio.level import level
    from sensekit.cli import main

    rms = 10 ** (-40 / 20)                          # -40 dBFS white noise
    quiet = _noisy_recording(tmp_path / "quiet.skrec", pixel_sigma=2.0, audio_rms=rms)
    noisy = _noisy_recording(tmp_path / "noisy.skrec", pixel_sigma=6.0, audio_rms=rms * 4)
    out = tmp_path / "venue.toml"
    out.write_text('[motion.zones]\ndoor = [0.0, 0.0, 0.25, 1.0]\n\n[audio]\ngain = 50\n')
    assert main(["calibrate", str(quiet), "--out", str(out), "--seconds", "1.5",
                 "--pick-color", "50,30"]) == 0
    p = load_profile(out)
    import numpy as np
    expected_level = level(np.full(400, rms, np.float32))   # rms -40 dBFS -> level 43.3
    assert p.audio.noise_floor == pytest.approx(expected_level, abs=1.0)
    assert p.color.target == "#ff8000"
    assert p.motion.zones == {"door": (0.0, 0.0, 0.25, 1.0)}     # kept from the old file
    quiet_floor = p.motion.noise_floor
    assert 1.5 < quiet_floor < 6.0
    text = capsys.readouterr().out
    assert "audio noise floor" in text and "camera noise floor" in text and str(out) in text

    assert main(["calibrate", str(noisy), "--out", str(out), "--seconds", "1.5"]) == 0
    p2 = load_profile(out)
    assert p2.color.target == "#ff8000"                           # not re-picked: kept
    assert p2.motion.noise_floor / quiet_floor == pytest.approx(3.0, rel=0.2)
    assert p2.audio.noise_floor - p.audio.noise_floor == pytest.approx(20 * np.log10(4) / 0.6,
                                                                       abs=1.0)


@pytest.mark.parametrize("argv,fragment", [
    (["--pick-color", "500,5"], "outside the 80x60 frame"),
    (["--pick-color", "x"], "X,Y"),
    (["--seconds", "0"], "--seconds"),
    (["--seconds", "-1"], "--seconds"),
])
def test_calibrate_errors_are_one_line(tmp_path: Path, capsys, argv, fragment):
    from sensekit.cli import main

    rec = _noisy_recording(tmp_path / "r.skrec", pixel_sigma=1.0, audio_rms=0.01, seconds=0.5)
    out = tmp_path / "venue.toml"
    assert main(["calibrate", str(rec), "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") <= 3
    assert not out.exists()


def test_calibrate_refuses_a_broken_existing_profile(tmp_path: Path, capsys):
    from sensekit.cli import main

    rec = _noisy_recording(tmp_path / "r.skrec", pixel_sigma=1.0, audio_rms=0.01, seconds=0.5)
    out = tmp_path / "venue.toml"
    out.write_text("[audio]\ngain = 500\n")
    assert main(["calibrate", str(rec), "--out", str(out)]) == 2
    assert f"{out}:2:" in capsys.readouterr().err
    assert out.read_text() == "[audio]\ngain = 500\n"                # untouched


def test_apply_profile_to_real_stages(recordings_dir: Path, tmp_path: Path):
    import argparse

    from sensekit.audio import options as audio_options
    from sensekit.capture.spec import open_source
    from sensekit.profile import apply_profile_to_stages, profile_for_events
    from sensekit.vision import options as vision_options

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated")
    p = loads_profile('[color]\ntarget = "#00ff00"\ntolerance = 20\n[motion]\nnoise_floor = 3.0\n'
                      '[motion.zones]\ndoor = [0.0, 0.0, 0.25, 1.0]\n'
                      '[audio]\ngain = 60\nthreshold = 33\ntimeout_ms = 250\nnoise_floor = 12.5\n')
    parser = argparse.ArgumentParser()
    vision_options.add_arguments(parser)
    audio_options.add_arguments(parser)
    parser.add_argument("--profile", type=Path)
    with open_source(f"replay:{demo}") as source:
        save_profile(p, tmp_path / "v.toml")
        args = parser.parse_args(["--motion", "--activity", "floor+6,500",
                                  "--profile", str(tmp_path / "v.toml")])
        loaded = profile_for_events(args, source)
        assert args.track_color == "#00ff00" and args.tolerance == "20,80,80"
        assert args.zones == "door=0,0,80,240" and args.gain == 60.0
        stages = [*vision_options.build_stages(args, source), *audio_options.build_stages(args, source)]
        done = apply_profile_to_stages(loaded, stages)
        vision = next(s for s in stages if getattr(s, "motion", None) is not None)
        audio = next(s for s in stages if getattr(s, "activity", None) is not None)
        assert vision.motion.fixed_threshold == 15                 # 5 x noise floor 3.0
        assert audio.noise_floor.ready and audio.noise_floor.level == 12.5
        assert audio.meter.gain == 60.0
        assert any("motion threshold 15" in d for d in done)
        # apps: override=True also sets the colour, gain and activity threshold
        apply_profile_to_stages(loaded, stages, override=True)
        assert audio.activity.silence_level == 33.0 and audio.activity.timeout_ms == 250.0
        tracker = next(s.tracker for s in stages if getattr(s, "tracker", None) is not None)
        assert tracker.color == 0x00FF00 and tracker.tolerance[0] == 20.0


def test_capture_profile_saves_what_the_stages_use(recordings_dir: Path, tmp_path: Path):
    import argparse

    from sensekit.audio import options as audio_options
    from sensekit.capture.spec import open_source
    from sensekit.profile import capture_profile
    from sensekit.runner import Runner
    from sensekit.vision import options as vision_options

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated")
    parser = argparse.ArgumentParser()
    vision_options.add_arguments(parser)
    audio_options.add_arguments(parser)
    args = parser.parse_args(["--track-color", "#eb2d14", "--tolerance", "15,80,80", "--motion",
                              "--activity", "30,400", "--gain", "55", "--noise-floor-ms", "500"])
    with open_source(f"replay:{demo}") as source:
        stages = [*vision_options.build_stages(args, source), *audio_options.build_stages(args, source)]
        Runner(source, stages, lazy=False).run(max_items=200)
    base = Profile()
    base.motion.zones = {"door": (0.0, 0.0, 0.25, 1.0)}
    p = capture_profile(stages, base)
    assert base.color.target is None, "the base must not be modified"
    assert p.color.target == "#eb2d14" and p.color.tolerance == 15.0
    assert p.motion.threshold is not None and 1 <= p.motion.threshold <= 255
    assert (p.audio.gain, p.audio.threshold, p.audio.timeout_ms) == (55.0, 30.0, 400.0)
    assert p.audio.noise_floor is not None
    assert p.motion.zones == {"door": (0.0, 0.0, 0.25, 1.0)}
    assert load_profile(save_profile(p, tmp_path / "saved.toml")) == p


COMMENTED = """\
# Gallery 3, north wall. Tuned by Ana on opening night.
[audio]   # the microphone above the door
gain = 62.5          # loud room: turned up
threshold = 20       # claps only
timeout_ms = 250

# the camera looks at the bench
[motion]
threshold = 30.5     # set by hand after the projector was moved

[motion.zones]
bench = [0.0, 0.5, 1.0, 0.5]   # people sit here

[color]
target = "#E03C28"   # the red ball
tolerance = 15
"""


def test_calibrate_edits_an_existing_profile_in_place(tmp_path: Path, capsys):
    """Only the learned keys change; comments, order, spelling of untouched values stay."""
    from sensekit.cli import main

    rec = _noisy_recording(tmp_path / "r.skrec", pixel_sigma=2.0, audio_rms=0.01, seconds=1.0)
    out = tmp_path / "venue.toml"
    out.write_text(COMMENTED)
    out.chmod(0o640)
    assert main(["calibrate", str(rec), "--out", str(out), "--seconds", "0.8"]) == 0, \
        capsys.readouterr().err
    text = out.read_text()
    new = text.splitlines()
    for line in COMMENTED.splitlines():                        # every line the user wrote is kept
        assert line in new, f"lost: {line!r}\n{text}"
    # the learned values were added to their own tables, nothing else was added
    added = [line for line in new if line not in COMMENTED.splitlines()]
    assert len(added) == 2 and {a.split("=")[0].strip() for a in added} == {"noise_floor"}
    assert new.index(added[0]) < new.index("[motion]") < new.index(added[1]) < new.index("[motion.zones]")
    p = load_profile(out)
    assert p.audio.noise_floor is not None and p.motion.noise_floor is not None
    assert p.audio.gain == 62.5 and p.motion.zones == {"bench": (0.0, 0.5, 1.0, 0.5)}
    assert out.stat().st_mode & 0o777 == 0o640                 # permissions kept

    # calibrating again changes a learned value in place, keeping its comment
    out.write_text(text.replace(added[0], "noise_floor = 99.0  # learned"))
    assert main(["calibrate", str(rec), "--out", str(out), "--seconds", "0.8"]) == 0
    again = out.read_text().splitlines()
    learned = [line for line in again if line.startswith("noise_floor") and "# learned" in line]
    assert len(learned) == 1 and "99.0" not in learned[0], again
    assert len(again) == len(new)


def test_save_profile_follows_a_symlink_and_drops_removed_zones(tmp_path: Path):
    real = tmp_path / "real.toml"
    real.write_text(COMMENTED)
    link = tmp_path / "venue.toml"
    link.symlink_to(real)
    p = load_profile(link)
    p.motion.zones = {}
    p.audio.gain = 40.0
    save_profile(p, link)
    assert link.is_symlink()                                   # the link is still a link
    text = real.read_text()
    assert "bench = " not in text and "gain = 40.0          # loud room: turned up" in text
    assert "# Gallery 3, north wall." in text and load_profile(real).audio.gain == 40.0
