"""Zone names are printable text, refused where zones are read: `--zones`, `motion.zones` (a
venue profile, `--set`, OSC, the panel) and the pixel zones a program hands the detector. A
newline, a tab or an escape in a name went into every motion event, blob event, log line and
OSC address that names the zone (the log and OSC escaped it; an events file or a consumer might
not): now one line naming the zone, escaped, before anything runs.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.cli import main
from sensekit.errors import ConfigError
from sensekit.profile import loads_profile
from sensekit.settings import lookup
from sensekit.vision.motion import MotionDetector, parse_zones

BAD_NAMES = ["door\nopen", "door\topen", "door\x1b[31m", "door\x00", "door\u2028open", "\x7f"]


def _one_line(exc: pytest.ExceptionInfo[ConfigError], name: str) -> str:
    text = str(exc.value)
    assert text.isprintable(), text
    assert repr(name)[1:-1] in text and "printable" in text, text
    return text


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_zones_option_refuses_a_name_with_a_control_character(name):
    with pytest.raises(ConfigError) as exc:
        parse_zones(f"{name}=0,0,10,10;ok=5,5,2,2")
    assert "--zones" in _one_line(exc, name)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_motion_zones_as_text_refuses_a_name_with_a_control_character(name):
    with pytest.raises(ConfigError) as exc:
        lookup("motion.zones").parse(f"{name}=0,0,0.5,0.5")
    assert "`motion.zones`" in _one_line(exc, name)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_venue_profile_refuses_a_zone_name_with_a_control_character(name):
    quoted = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)
    with pytest.raises(ConfigError) as exc:
        loads_profile(f'[motion.zones]\n"{quoted}" = [0.0, 0.0, 0.5, 0.5]\n', path="venue.toml")
    _one_line(exc, name)


def test_pixel_zones_handed_to_the_detector_are_checked_too():
    md = MotionDetector(zones_px={"door\nopen": (0, 0, 10, 10)})
    with pytest.raises(ConfigError) as exc:
        md.update(np.zeros((24, 32, 3), np.uint8))
    _one_line(exc, "door\nopen")


def test_events_with_such_a_zone_stop_at_the_start_in_one_line(recordings_dir, capsys):
    code = main(["events", str(recordings_dir / "demo.skrec"), "--blobs", "--zones", "door\x1b[2J=0,0,80,80"])
    assert code == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "door\\x1b[2J" in err[0] and "printable" in err[0], err


def test_printable_names_still_pass():
    assert parse_zones("Tür links=0,0,10,10") == {"Tür links": (0, 0, 10, 10)}
    assert set(lookup("motion.zones").parse("ステージ=0,0,0.5,0.5")) == {"ステージ"}
