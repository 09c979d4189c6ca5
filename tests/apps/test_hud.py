"""sensekit.app.hud: the status line reads as a person says it."""
from __future__ import annotations

import re


def test_a_percentage_level_reads_number_then_percent(play):
    """color_ball's and steer's levels are named with their unit ("match %"): the status line
    read "match % 96" and "polarization % 8"."""
    for app, name in (("color_ball", "match"), ("steer", "polarization")):
        host = play(app, 30)
        if app == "steer":
            host.app.set_mode("flock flees hand")        # the flock's number, while a flock flies
        line = host.hud.line()
        assert re.search(rf"\| {name} \d+ %$", line), line
    assert re.search(r"\| level \d+$", play("clapper", 30).hud.line())      # a plain level as before


def test_steer_s_status_line_names_what_is_on_screen(play):
    """Arriving vehicles or wanderers showed the flock's 'polarization 8 %', a flock that was
    neither moving nor drawn (the number never changed)."""
    host = play("steer", 60)
    line = host.hud.line()
    gap = host.app.state()["mean_gap_to_target"]
    assert gap is not None and line.endswith(f"| gap to target {gap:.0f} px"), line
    for mode, tail in (("arrive at motion", r"(\| gap to target \d+ px|lag \d+ ms)$"),
                       ("wanderers", r"lag \d+ ms$"), ("flock flees people", r"\| polarization \d+ %$")):
        host.app.set_mode(mode)
        assert re.search(tail, host.hud.line()), (mode, host.hud.line())
    assert "polarization" not in line


def test_recording_ended_is_said_in_the_title_bar_not_over_the_game(play):
    """At the end of a replay the notice sat at the bottom right of the game, over the
    activity graph's 'now', the clapper's trace and the paddle's zone box."""
    import numpy as np
    import pygame

    from sensekit.app import draw as D
    from sensekit.app.convert import surface_to_array

    for app in ("activity_graph", "clapper", "motion_paddle"):
        host = play(app, 30)
        shots = []
        for ended in (False, True):
            screen = pygame.Surface(host.screen.get_size())
            host.app.draw(screen)
            host.hud.draw(screen, status_line=True, paused=False, ended=ended)
            shots.append(surface_to_array(screen))
        rows = np.nonzero((shots[0] != shots[1]).any(axis=(1, 2)))[0]
        assert len(rows) and rows.max() < D.TITLE_H, (app, rows.min(), rows.max())


def test_the_activity_graph_s_title_counts_activations_by_name(play, monkeypatch):
    """Its title bar read 'on 3  claps 0': 'on' what? It counts the activations the green marks
    show ('activity on' in its legend)."""
    import pygame

    from sensekit.app import draw as D

    host = play("activity_graph", 200)
    said: list[str] = []
    monkeypatch.setattr(D, "title_bar", lambda screen, title, score="": said.append(score))
    host.app.draw(pygame.Surface(host.screen.get_size()))
    assert said == [f"activations {host.app.counts['on']} (threshold 30, 300 ms)  claps {host.app.counts['clap']}"]
    assert host.app.counts["on"] == 3


def test_plot_and_the_activity_graph_count_the_same_activations_at_the_same_settings(play, capsys, tmp_path):
    """`sensekit plot demo` said "1 activation" and activity_graph on the demo "activations 10": the
    table's threshold 10 and 2000 ms against the app's 30 and 300 ms. Each now says at which, and
    at the app's settings the plot counts what the app does."""

    from sensekit.cli import main
    from sensekit.paths import recordings_dir

    host = play("activity_graph", 25 * 30)                     # past the demo's 20 s
    assert host.app.counts["on"] == 10
    assert host.app.counts_said() == "activations 10 (threshold 30, 300 ms)  claps 6"
    from sensekit.app import draw as D

    title_w = D.render(host.app.title, 28, D.ACCENT, bold=True).get_width()
    score_w = D.render(host.app.counts_said(), 28, D.WHITE, bold=True).get_width()
    assert 10 + title_w + 20 + score_w + 10 <= host.screen.get_width()     # the title bar still holds both
    demo = str(recordings_dir() / "demo.skrec")
    lines = []
    for extra in ([], ["--activity", "30,300"]):
        assert main(["plot", demo, "--out", str(tmp_path / "p.png"), *extra]) == 0
        lines.append(capsys.readouterr().out.strip().splitlines()[-1])
    assert lines[0].endswith("6 claps, 1 activation at threshold 10, timeout 2000 ms)"), lines[0]
    assert lines[1].endswith("6 claps, 10 activations at threshold 30, timeout 300 ms)"), lines[1]


def test_a_score_too_wide_for_the_title_bar_never_covers_the_title():
    """activity_graph's counts fill ~592 of 640 px beside its title ("activations 3 (threshold 30,
    300 ms)  claps 0"); three-digit counts at a long timeout ran over "Activity Graph". The score
    is drawn smaller, then cut, in the room the title leaves; a score that fits is as before."""
    import numpy as np
    import pygame

    from sensekit.app import draw as D
    from sensekit.app.convert import surface_to_array

    def bar(score: str) -> np.ndarray:
        screen = pygame.Surface((640, 100))
        D.title_bar(screen, "Activity Graph", score)
        return surface_to_array(screen)

    title_w = D.render("Activity Graph", 28, D.ACCENT, bold=True).get_width()
    bare = bar("")
    long = "activations 104 (threshold 100, 600000 ms)  claps 123"
    assert D.render(long, 28, D.WHITE, bold=True).get_width() > 640 - 10 - title_w - 20 - 10
    drawn = bar(long)
    assert (drawn[:, : 10 + title_w + 20] == bare[:, : 10 + title_w + 20]).all()     # the title untouched
    assert (drawn[:, 10 + title_w + 20:] != bare[:, 10 + title_w + 20:]).any()       # the score is there
    fits = "activations 3 (threshold 30, 300 ms)  claps 0"
    screen = pygame.Surface((640, 100))
    screen.fill(D.PANEL, (0, 0, 640, D.TITLE_H))
    D.text(screen, "Activity Graph", (10, 4), size=28, color=D.ACCENT, bold=True)
    D.text(screen, fits, (630, 4), size=28, color=D.WHITE, anchor="topright", bold=True)
    assert (bar(fits) == surface_to_array(screen)).all()                              # unchanged when it fits
