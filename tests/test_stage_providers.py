"""`sensekit events` finds its stage providers itself: every ``sensekit/cli/*_options.py`` that
defines ``build_stages``, in the order of its ``STAGE_ORDER``."""
from __future__ import annotations

from pathlib import Path

import pytest

from sensekit.cli import events as events_cli

PROVIDER = "def add_arguments(parser):\n    pass\n\n\ndef build_stages(args, source, chosen):\n    return []\n"


def test_the_providers_keep_the_order_of_their_options() -> None:
    # the order the hand-kept list had: it sets the option groups of --help and the stages' order
    assert events_cli.STAGE_PROVIDERS == ["sensekit.cli.vision_options", "sensekit.cli.audio_options",
                                          "sensekit.cli.hand_options", "sensekit.cli.pose_options",
                                          "sensekit.cli.voice_options"]


def test_a_new_options_file_is_a_provider_in_its_place(tmp_path: Path) -> None:
    (tmp_path / "zebra_options.py").write_text("STAGE_ORDER = 15\n" + PROVIDER)
    (tmp_path / "alpha_options.py").write_text("STAGE_ORDER = 30\n" + PROVIDER)
    (tmp_path / "beta_options.py").write_text("STAGE_ORDER = 2.5\n" + PROVIDER)
    (tmp_path / "helper_options.py").write_text("STAGE_ORDER = 1\ndef add_arguments(parser):\n    pass\n")
    (tmp_path / "osc_args.py").write_text("STAGE_ORDER = 0\n" + PROVIDER)
    assert events_cli.stage_providers(tmp_path, "pkg") == ["pkg.beta_options", "pkg.zebra_options",
                                                           "pkg.alpha_options"]


@pytest.mark.parametrize("head", ["", "STAGE_ORDER = 'first'\n", "STAGE_ORDER = True\n",
                                  "STAGE_ORDER = 1\nSTAGE_ORDER = 2\n"])
def test_a_provider_without_a_number_for_its_place_is_named(tmp_path: Path, head: str) -> None:
    (tmp_path / "knock_options.py").write_text(head + PROVIDER)
    with pytest.raises(ValueError, match=r"knock_options\.py defines build_stages but no STAGE_ORDER"):
        events_cli.stage_providers(tmp_path, "pkg")
