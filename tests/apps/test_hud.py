"""sensekit.app.hud: the status line reads as a person says it."""
from __future__ import annotations

import re


def test_a_percentage_level_reads_number_then_percent(play):
    """color_ball's and steer's levels are named with their unit ("match %"): the status line
    read "match % 96" and "polarization % 8"."""
    for app, name in (("color_ball", "match"), ("steer", "polarization")):
        line = play(app, 30).hud.line()
        assert re.search(rf"\| {name} \d+ %$", line), line
    assert re.search(r"\| level \d+$", play("clapper", 30).hud.line())      # a plain level as before
