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
