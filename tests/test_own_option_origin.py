"""A command's own options (``--track-color``, ``--activity``, ``--tolerance``, ``--track-box``)
are named as typed in a refusal (harden28): they were ``the command line``, which does not say
which of a command's options gave the value the message quotes (harden26 named ``--set`` and the
bound options so; ``cli/tuning.own_option``)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest


from .test_arg_types import DEMO
from .test_profile_origin import _needs_demo, _refusal

#: (profile text or None, options, the end of the refusal)
CASES = [
    ('[tracker]\nmethod = "model"\n', ["--track-color", "#ff0000"], "[`tracker.color`: --track-color #ff0000]"),
    ("[activity]\noff_level = 50\n", ["--activity", "10"], "[`activity.silence_level`: --activity 10]"),
    (None, ["--activity", "10", "--set", "activity.off_level=50"], "[`activity.silence_level`: --activity 10]"),
    (None, ["--activity", "floor+12", "--set", "activity.off_db=20"], "[`activity.on_db`: --activity floor+12]"),
]


@pytest.mark.parametrize("text, options, said", CASES, ids=["track-color", "activity-profile", "activity-set",
                                                             "activity-floor"])
def test_a_commands_own_option_is_named_as_typed(tmp_path: Path, capsys: Any, text: str | None,
                                                 options: list[str], said: str) -> None:
    _needs_demo()
    argv = ["events", str(DEMO), "--max-items", "3", *options]
    if text is not None:
        profile = tmp_path / "venue.toml"
        profile.write_text(text)
        argv += ["--profile", str(profile)]
    line = _refusal(capsys, argv)
    assert line.endswith(said), line
    assert "the command line" not in line, line


def test_every_key_a_commands_own_option_sets_is_named_by_it() -> None:
    """Each provider's ``option_values`` (and ``plot``'s ``--activity``), with every own option
    given: no key it sets falls through to ``the command line``."""
    from sensekit.cli import audio_options, vision_options
    from sensekit.cli.events import _providers
    from sensekit.cli.tuning import own_option

    typed = {"activity": "floor+12,500", "tolerance": "10,20,30", "track_color": "#ff0000", "track_box": None}
    args = argparse.Namespace(**typed, panel=None, sounds=False, profile=None)
    keys = {**audio_options.option_values(args), **vision_options.option_values(args)}
    args.activity = "25,500"
    keys.update(audio_options.option_values(args))
    assert {"activity.on_db", "activity.silence_level", "activity.timeout_ms", "tracker.color",
            "tracker.hue_tolerance", "tracker.value_tolerance"} <= set(keys), keys
    for provider in _providers():
        if hasattr(provider, "option_values"):
            keys.update(provider.option_values(args))
    for key in keys:
        assert own_option(args, key) != "the command line", key
    args.track_box = (1, 2, 30, 40)
    assert own_option(args, "tracker.color") == "--track-box 1,2,30,40"
    assert own_option(argparse.Namespace(), "activity.silence_level") == "the command line"


def _run_cli(argv: list[str], cwd: Path) -> tuple[int, list[str]]:
    """``python -m sensekit ARGV`` in a fresh process (the real command line, headless)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    p = subprocess.run([sys.executable, "-m", "sensekit", *argv], capture_output=True, text=True,
                       timeout=120, cwd=cwd, env=env)
    return p.returncode, [ln for ln in p.stderr.strip().splitlines() if ln.strip()]


@pytest.mark.parametrize("extra, said", [
    ([], "[`tracker.color`: --track-color #ff0000]"),
    (["--set", "tracker.color=#00ff00"], "[`tracker.color`: --set tracker.color=#00ff00]"),
], ids=["track-color", "set-over-track-color"])
def test_run_quotes_the_colour_typed_not_the_apps_own(tmp_path: Path, extra: list[str], said: str) -> None:
    """``sensekit run steer --track-color #ff0000 --set tracker.method=model`` (harden29): the
    refusal quoted `tracker.color` (#eb2d14), steer's own colour: ``run`` applied ``--track-color``
    after the settings, not through ``chosen_values`` as ``events`` does (``events.own_values``,
    one path now). ``--set`` still wins over ``--track-color``, as in ``events``."""
    _needs_demo()
    colour = "#00ff00" if extra else "#ff0000"
    code, err = _run_cli(["run", "steer", "--source", str(DEMO), "--headless", "--frames", "2",
                          "--track-color", "#ff0000", *extra, "--set", "tracker.method=model"], tmp_path)
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("sensekit: error: --set tracker.method=model: "), err[0]
    assert f"not from `tracker.color` ({colour})" in err[0], err[0]
    assert "#eb2d14" not in err[0], err[0]
    assert err[0].endswith(said), err[0]


def test_run_refuses_a_colour_in_an_app_that_tracks_nothing_without_a_warning_first(tmp_path: Path) -> None:
    """``run clapper --track-color #ff0000``: one line, the app tracks nothing (the colour, now a
    chosen value, is not first said to be unused)."""
    _needs_demo()
    code, err = _run_cli(["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2",
                          "--track-color", "#ff0000"], tmp_path)
    assert code == 2 and err == ["sensekit: error: clapper does not track anything; --track-color and "
                                 "--track-box need an app that tracks a coloured object"], err
