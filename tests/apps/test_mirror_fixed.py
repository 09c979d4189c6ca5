"""``vision.mirror`` false inside an app that mirrors the picture itself changes nothing; every
door now says so in the same sentence (``Tuning.fixed``, the panel's mechanism), and none stops
the run: ``--set`` and a venue profile warn in one line and the run starts, OSC logs the
refusal and counts it in ``rejected``, the panel's API answers it as an error. Before, ``--set``,
the profile and OSC took the value silently (OSC even counted it accepted)."""
from __future__ import annotations

import json
import logging

import pytest

from sensekit.cli import main
from sensekit.errors import ConfigError

WHY = "`vision.mirror` stays True in this run: color_ball mirrors the camera picture itself"


def _events(tmp_path, tag: str, extra: list[str]) -> list[dict]:
    events = tmp_path / f"{tag}.jsonl"
    assert main(["run", "color_ball", "--headless", "--frames", "20", "--events", str(events), *extra]) == 0
    return [json.loads(line) for line in events.read_text().splitlines()]


@pytest.fixture
def demo(recordings_dir):
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    return recordings_dir / "demo.skrec"


@pytest.mark.parametrize("door", ["set", "profile"])
def test_set_or_a_profile_asking_an_app_not_to_mirror_is_one_warning_and_the_run_goes_on(
        demo, tmp_path, caplog, door):
    plain = _events(tmp_path, "plain", [])
    assert not [r for r in caplog.records if "vision.mirror" in r.getMessage()]
    caplog.clear()
    profile = tmp_path / "venue.toml"
    profile.write_text("[vision]\nmirror = false\n")
    extra = ["--set", "vision.mirror=false"] if door == "set" else ["--profile", str(profile)]
    with caplog.at_level(logging.WARNING):
        events = _events(tmp_path, door, extra)
    said = [r.getMessage() for r in caplog.records if "vision.mirror" in r.getMessage()]
    where = "the command line" if door == "set" else "the profile"
    assert said == [f"{WHY}; vision.mirror=false from {where} is not applied"]
    assert [r.levelno for r in caplog.records if "vision.mirror" in r.getMessage()] == [logging.WARNING]
    assert events == plain and any(e["event"] == "color_tracked" for e in events)


def _host(demo):
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load
    from sensekit.capture.spec import open_source

    source = open_source(f"replay:{demo}")
    source.open()
    return AppHost(load("color_ball"), source, RunOptions(headless=True)), source


def test_osc_asking_an_app_not_to_mirror_is_refused_in_one_log_line_and_the_run_goes_on(demo, caplog):
    from sensekit.osc import OscControl

    host, source = _host(demo)
    try:
        with OscControl("127.0.0.1", 0, tuning=host.tuning) as control, caplog.at_level(logging.WARNING):
            host.step()
            control.handle("/sensekit/set/vision/mirror", False)
            said = [r.getMessage() for r in caplog.records if "vision.mirror" in r.getMessage()]
            assert said == [f"OSC: ignored /sensekit/set/vision/mirror False: {WHY}"]
            assert (control.rejected, control.accepted) == (1, 0)
            control.handle("/sensekit/set/vision/mirror", True)      # what it is: taken, no change
            control.handle("/sensekit/set/tracker/hue_tolerance", 30)
            assert (control.rejected, control.accepted) == (1, 2)
            for _ in range(5):
                host.step()
        assert host.tuning.settings()["vision.mirror"] is True
        assert host.tuning.settings()["tracker.hue_tolerance"] == 30
        assert host.steps == 6 and not host.quit
    finally:
        host.close()
        source.close()


def test_the_panel_api_refuses_it_with_the_same_sentence(demo):
    from sensekit.panel.control import AppControl

    host, source = _host(demo)
    try:
        control = AppControl(host)
        assert control.settings()["fixed"] == {"vision.mirror": WHY.split(": ", 1)[1]}
        with pytest.raises(ConfigError) as err:
            control.apply({"vision.mirror": False})
        assert str(err.value) == WHY
        assert control.apply({"vision.mirror": True}) == {"values": {"vision.mirror": True}}
    finally:
        host.close()
        source.close()
