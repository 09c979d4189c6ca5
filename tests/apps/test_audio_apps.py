"""sound_flier, clapper and activity_graph on the demo replay: what a player would see."""
from __future__ import annotations

import numpy as np


def _inside(t: float, intervals: list[list[float]], margin: float = 0.0) -> bool:
    return any(a + margin <= t <= b for a, b in intervals)


def test_flier_climbs_while_loud_and_sinks_while_quiet(play, truth):
    host = play("sound_flier", 9 * 30)
    hist = np.array(host.app.history)        # t, level, altitude, upward velocity, flying free
    t, level, _alt, vup, free = hist.T
    free = free.astype(bool)
    quiet = truth["quiet"] + [s for s in truth["silence"] if s[1] <= 9.0]
    for a, b in truth["loud"]:
        if b > 9.0:
            continue
        sel = (t >= a + 0.3) & (t <= b) & free
        assert sel.sum() > 10 and vup[sel].mean() > 0.5, (a, b)
    for a, b in quiet:
        sel = (t >= a + 0.3) & (t <= b) & free
        if sel.sum() > 5:
            assert vup[sel].mean() < -0.5, (a, b)
    r = np.corrcoef(level[free], vup[free])[0, 1]
    assert r > 0.8, r
    assert free.mean() > 0.6


def test_flier_crash_ends_the_run_and_a_shout_restarts_it(play, truth):
    host = play("sound_flier", 1)
    app = host.app
    app.rocks = np.array([[app.world_x + 100.0, 80.0, 400.0, 1.0]])   # a rock filling the cave
    host.step()
    host.step()
    assert app.crashed_at is not None and app.state()["crashed"]
    frozen = app.distance_m
    while host.sim_t < truth["loud"][0][0] - 0.1:       # silence: the run stays over
        host.step()
    assert app.crashed_at is not None and app.distance_m == frozen and app.runs == 1
    while host.sim_t < truth["loud"][0][0] + 0.5:       # the recording gets loud: a new run
        host.step()
    assert app.runs == 2 and app.crashed_at is None


def test_clapper_toggles_once_per_clap(play, truth):
    host = play("clapper", int((truth["claps"][-1] + 1.0) * 30))
    app = host.app
    assert app.toggles == len(truth["claps"])
    assert np.allclose(app.claps, truth["claps"], atol=0.05)
    assert app.doubles == len(truth["clap_patterns"])
    # each clap toggles; a double clap then leaves the lamp on in its new colour
    lamp = False
    ends = {p["times"][-1] for p in truth["clap_patterns"] if p["count"] == 2}
    for t in truth["claps"]:
        lamp = not lamp or t in ends
    assert app.lamp_on == lamp


def test_clapper_double_clap_shows_its_new_colour_on_a_lit_lamp(play, truth):
    # the demo's double clap (12.0, 12.25) comes after an even number of claps: its two claps
    # switched the lamp on and off again, and the colour changed on a dark lamp
    _first, second = truth["clap_patterns"][0]["times"]
    later = min(t for t in truth["claps"] if t > second)
    host = play("clapper", int((later - 0.1) * 30))
    app = host.app
    assert app.doubles == 1 and app.state()["color"] == "red"
    assert app.lamp_on and app.state()["lamp_on"]


def test_clapper_book_preset_toggles_on_activity_and_ignores_doubles(play):
    # --preset book keeps the book's lamp: every activating sound toggles it, colours never change
    from sensekit.settings.presets import PRESETS

    host = play("clapper", 600, each=lambda h: h.steps == 1 and h.tuning.apply_now(PRESETS["book"].values))
    app = host.app
    assert app.doubles == 0 and app.state()["color"] == "warm white"
    assert app.toggles == 7 and app.lamp_on                       # 7 toggles from off (tests/apps/test_book.py)


def test_activity_graph_marks_activity_and_claps(play, truth):
    host = play("activity_graph", 9 * 30)
    app = host.app
    trace = app.state()["trace"]
    steps = np.arange(len(trace))
    t = host.sim_t - (len(trace) - 1 - steps) * app.step_s
    loud = np.array([_inside(x, truth["loud"], 0.2) for x in t])
    silent = np.array([_inside(x, truth["silence"], 0.2) for x in t])
    assert trace[loud].mean() > app.threshold > trace[silent].mean()
    assert app.counts["on"] >= 2 and app.counts["off"] >= 1


def test_activity_graph_draws_nothing_for_the_time_before_the_run(play):
    from sensekit.app import draw as D

    shots = []
    host = play("activity_graph", 30, each=lambda h: shots.append(h.screen.copy()))   # 1 s of 10
    trace = host.app.state()["trace"]
    assert np.isnan(trace[:-30]).all() and not np.isnan(trace[-30:]).any()
    import pygame

    pixels = pygame.surfarray.pixels3d(shots[-1])           # (x, y, rgb)
    area = D.content_rect(shots[-1])
    plot_x, plot_w = area.x + 44, area.w - 64                # the graph's layout in draw()
    older = pixels[plot_x + 4: plot_x + plot_w * 8 // 10]    # 10 s .. 2 s ago: before the run
    newest = pixels[plot_x + plot_w * 92 // 100: plot_x + plot_w]
    trace_colours = [D.CYAN, (24, 70, 96)]
    assert not any((older == c).all(axis=-1).any() for c in trace_colours)
    assert all((newest == c).all(axis=-1).any() for c in trace_colours)


def test_keys_recalibrate_the_noise_floor_and_move_the_threshold(play):
    import pygame

    host = play("activity_graph", 45)          # 1.5 s: the 1 s floor has been learned
    app = host.app
    assert not app.floor.learning and app.floor.ready
    host.press(pygame.K_c)
    assert app.floor.learning and "noise floor" in host.toast[0]
    before = app.threshold
    host.press(pygame.K_PLUS)                  # more sensitive: a lower threshold
    assert app.threshold == before - 5
    host.press(pygame.K_MINUS)
    host.press(pygame.K_MINUS)
    assert app.threshold == before + 5
    for _ in range(40):
        host.step()
    assert not app.floor.learning              # learned again from the recording


def test_flier_steers_by_spoken_up_and_down(play):
    from sensekit.events import Word

    host = play("sound_flier", 1)
    app = host.app
    app.rocks = np.zeros((0, 4))
    app.next_rock_x = 1e9                                # an open cave: only the words move it
    y0 = app.y
    host.dispatcher.dispatch(Word(t=host.sim_t, word="up", confidence=0.9))
    for _ in range(30):                                  # friction spends the kick
        host.step()
    assert app.voice_steering and app.y < y0 - 0.8 * app.word_kick / (1 - app.friction)
    y1 = app.y
    for _ in range(20):                                  # no gravity, no loudness lift: it glides
        host.step()
    assert abs(app.y - y1) < 1.0
    host.dispatcher.dispatch(Word(t=host.sim_t, word="down", confidence=0.9))
    for _ in range(10):
        host.step()
    assert app.y > y1 + 0.8 * app.word_kick / (1 - app.friction)


def test_flier_best_is_never_below_the_current_distance(play):
    """The HUD's "best" counts the run in progress: at 300 steps on the demo the second run has
    flown further than the first (it showed "35 m   best 19 m")."""
    seen: list[tuple[float, float, int]] = []
    host = play("sound_flier", 300, each=lambda h: seen.append(
        (h.app.state()["distance_m"], h.app.state()["best_m"], h.app.runs)))
    assert host.app.runs >= 2                       # the demo crashes once and flies again
    assert all(best >= distance for distance, best, _ in seen)
    # a finished run's best stays after a restart
    firsts = [d for d, _, run in seen if run == 1]
    assert min(best for _, best, run in seen if run >= 2) >= max(firsts) - 1e-9


def test_clapper_sound_strip_keeps_its_label_readable(play, truth):
    """The strip's trace and clap marks stay off its label ("sound, last 6 s (| = clap)"): at
    full level the trace used to run through the text. The label's pixels are those a strip
    with no sound drawn shows; with the claps' sound drawn they must be unchanged."""
    import pygame

    from sensekit.app.convert import surface_to_array

    host = play("clapper", int((truth["claps"][-1] + 0.5) * 30))
    app = host.app
    rect = pygame.Rect(20, 20, 600, 90)

    def strip() -> np.ndarray:
        screen = pygame.Surface((640, 130))
        app._draw_strip(screen, rect)
        return surface_to_array(screen)

    drawn = strip()
    app.levels_seen, app.claps = type(app.levels_seen)(), []
    empty = strip()
    background = empty[rect.bottom - 3, rect.centerx]
    inside = np.zeros(empty.shape[:2], bool)
    inside[rect.y + 6:rect.bottom - 6, rect.x + 6:rect.right - 6] = True       # off the rounded corners
    ys, xs = np.nonzero((empty != background).any(axis=2) & inside)
    assert len(ys) > 50                                   # the label is there
    box = (slice(ys.min() - 2, ys.max() + 3), slice(xs.min() - 2, xs.max() + 3))
    assert np.array_equal(drawn[box], empty[box]), "trace or clap marks drawn over the label"
    assert (drawn != empty).any(axis=2).sum() > 500       # and the sound is drawn, below it


def test_flier_status_line_names_its_numbers_and_they_are_true(play):
    from sensekit.events import Word

    host = play("sound_flier", 30)
    app = host.app
    line = host.hud_line()
    above = round(app.hover_level_now)
    assert f"voice level {app.level:.0f}" in line and f"climbs above {above}" in line, line
    assert "hover" not in line
    app.level = app.hover_level_now * 1.05             # a little over the number shown: it climbs
    assert app.acceleration() < 0
    app.level = app.hover_level_now * 0.95             # a little under: it sinks
    assert app.acceleration() > 0
    host.dispatcher.dispatch(Word(t=host.sim_t, word="up", confidence=0.9))
    assert app.voice_steering and "climbs above" not in host.hud_line()   # words steer, not loudness


def test_activity_graph_s_threshold_label_is_not_crossed_by_the_trace_or_the_marks(play):
    """The event marks and a loud trace were drawn over 'threshold 30' (the screenshot's green and
    cyan lines through it); the label now sits on the plot's colour above them."""
    import pygame

    from sensekit.app import draw as D

    host = play("activity_graph", 30)
    app = host.app
    area = D.content_rect(host.screen)
    plot_x = area.x + 44                                     # the graph's layout in draw()
    app.trace[:] = 90.0                                      # loud all along: the trace above the line
    app.marks = [(app.t - (1 - f) * app.seconds, kind) for f in np.linspace(0, 0.3, 40)
                 for kind in ("on", "off", "clap")]          # marks across the label's end of the plot
    app.draw(host.screen)
    text = D.render(f"threshold {app.threshold:.0f}", 18, D.ACCENT)
    plot_bottom, plot_h = area.y + 70 + area.h - 100, area.h - 100
    thr = int(plot_bottom - app.threshold / 100.0 * plot_h)
    box = pygame.surfarray.pixels3d(host.screen)[plot_x + 6: plot_x + 6 + text.get_width(),
                                                 thr - 2 - text.get_height(): thr - 2]
    for colour in (D.CYAN, (24, 70, 96), D.GREEN, D.RED):
        assert not (box == colour).all(axis=-1).any(), colour
    assert (box == D.ACCENT).all(axis=-1).any()              # the label is there
