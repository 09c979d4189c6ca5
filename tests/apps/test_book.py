"""``--preset book``: every app runs by the book's constants and methods (headless, on the demo)."""
from __future__ import annotations

from pathlib import Path

import pytest

from sensekit.settings import PRESETS

APPS = ["sound_flier", "clapper", "activity_graph", "color_ball", "motion_paddle", "edge_snow", "steer",
        "collide", "pinch_toss"]


@pytest.mark.parametrize("name", APPS)
def test_every_app_runs_by_the_book(name: str, tmp_path: Path, capsys, truth):
    from sensekit.cli import main

    out = tmp_path / f"{name}.png"
    assert main(["run", name, "--preset", "book", "--headless", "--frames", "150", "--screenshot", str(out)]) == 0
    assert out.is_file() and f"{name}: 150 frames" in capsys.readouterr().out


def test_the_book_preset_changes_what_the_apps_do(play, truth):
    """The flier falls and rises by the book's numbers; the clapper toggles on activity, on every
    loud sound; the paddle's motion is the red channel over 0x33; the colour ball tracks the
    exact colour after blur and palette."""
    flier = play("sound_flier", 1)
    flier.tuning.apply_now(PRESETS["book"].values)
    app = flier.app
    app.level = 0.0
    assert app.acceleration() == pytest.approx(0.4)                  # gravity alone
    app.level = 50.0
    assert app.acceleration() == pytest.approx(0.4 - 50 * 0.02)      # lift = level x 0.02
    assert app.friction == 0.9

    claps_only = play("clapper", 600).app.toggles
    book = play("clapper", 600, each=lambda h: h.steps == 1 and h.tuning.apply_now(PRESETS["book"].values))
    assert book.app.method == "activity" and book.app.toggles != claps_only   # speech toggles it too

    paddle = play("motion_paddle", 1)
    assert paddle.runner.stages[0].motion.method == "background"     # sensekit's default
    paddle.tuning.apply_now(PRESETS["book"].values)
    vision = paddle.runner.stages[0]
    assert (vision.motion.channel, vision.motion.threshold, vision.blur_px) == ("red", 51.0, 10)
    assert vision.motion.method == "difference"                      # the book's frame difference
    assert paddle.app.steer == "book"

    ball = play("color_ball", 120, each=lambda h: h.steps == 1 and h.tuning.apply_now(PRESETS["book"].values))
    tracker = ball.runner.stages[0].tracker
    assert (tracker.method, ball.runner.stages[0].blur_px, ball.runner.stages[0].levels) == ("exact", 10, 4)
    assert ball.app.tracking                                          # the ball is found by exact colour


#: the book clapper's lamp toggles on the demo (the activity events that switch it), as main
#: gave them at 40e340a, before the noise route was on by default (``sensekit run clapper
#: --preset book --headless --frames 600 --events FILE`` on that commit)
MAIN_BOOK_TOGGLES_S = [0.992, 9.984, 10.976, 12.0, 13.472, 14.976, 16.0]


@pytest.mark.parametrize("route", [True, False])
def test_the_book_clapper_is_untouched_by_the_noise_route(play, truth, route):
    """The book's lamp listens to ``activity`` (setSilenceLevel), not to the clap detector, so
    ``clap.noise_route`` (on by default since the eleventh pass) changes none of its toggles;
    the clap detector, still running under the preset, reports the demo's claps either way."""
    claps: list[float] = []

    def each(h):
        if h.steps == 1:
            h.tuning.apply_now({**PRESETS["book"].values, "clap.noise_route": route})
            h.dispatcher.on("clap", lambda e: claps.append(round(e.t, 3)))

    book = play("clapper", 600, each=each)
    assert book.app.method == "activity" and book.runner.stages[0].clap.noise_route is route
    assert [round(t, 3) for t in book.app.claps] == MAIN_BOOK_TOGGLES_S
    assert claps == [round(t, 3) for t in truth["claps"]]
