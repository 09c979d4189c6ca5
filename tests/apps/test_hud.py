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
    assert said == [f"activations {host.app.counts['on']}  claps {host.app.counts['clap']}"]
    assert host.app.counts["on"] == 3
