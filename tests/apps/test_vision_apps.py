"""color_ball, motion_paddle and edge_snow on the demo replay: what a player would see."""
from __future__ import annotations

import numpy as np

from sensekit.app.convert import camera_to_view, mirror_x


def test_color_ball_follows_the_ball_across_the_window(play, truth):
    frames = {f["index"]: f for f in truth["frames"]}
    w, h = truth["video"]["width"], truth["video"]["height"]
    errors: list[float] = []
    positions: list[tuple[float, float]] = []

    def check(host):
        frame = host.runner.latest_frame
        ball = frames[frame.index]["ball"]
        # truth is in camera coordinates; the player sees the mirrored image
        tx, ty = camera_to_view(mirror_x(ball["cx"], w), ball["cy"], (w, h), host.app.camera_view)
        errors.append(float(np.hypot(host.app.ball[0] - tx, host.app.ball[1] - ty)))
        positions.append(tuple(host.app.ball))

    host = play("color_ball", 240, check)
    errors_a = np.array(errors)
    assert (errors_a <= 15.0).mean() >= 0.95, np.percentile(errors_a, [50, 90, 95])
    xs = np.array(positions)[:, 0]
    assert xs.max() - xs.min() > 0.6 * host.app.camera_view.w      # across the window
    assert host.app.box is not None and host.app.box.collidepoint(host.app.ball)


def test_color_ball_stays_put_while_the_colour_is_lost(play):
    from sensekit.events import ColorLost

    seen: list[tuple[float, float]] = []

    def lose_after(host):
        if host.steps == 60:      # stop tracking: the colour vanishes as far as the app knows
            host.app.vision.tracker.set_color(0x00FF00)
        if host.steps > 75:
            seen.append(tuple(host.app.ball))

    host = play("color_ball", 120, lose_after)
    assert not host.app.tracking
    assert len(set(seen)) == 1
    assert ColorLost.name in host.runner.stats.event_counts


def _side(truth, t):
    for iv in truth["hand"]["intervals"]:
        if iv["start"] + 0.3 <= t <= iv["end"]:
            return iv["side"]
    return None


def test_motion_paddle_moves_towards_the_side_the_player_sees_moving(play, truth):
    moves: dict[str, list[float]] = {"left": [], "right": []}
    last = {}

    def track(host):
        x = host.app.paddle_x
        side = _side(truth, host.runner.latest_frame.t)
        if side is not None and "x" in last:
            moves[side].append(x - last["x"])
        last["x"] = x

    # 3..6 s: the hand waves on the camera's left, which the mirrored screen shows on the right;
    # 11..14 s: camera right, screen left.
    play("motion_paddle", 14 * 30, track)
    assert sum(moves["left"]) > 100 and np.mean(np.array(moves["left"]) >= 0) > 0.7
    assert sum(moves["right"]) < -100 and np.mean(np.array(moves["right"]) <= 0) > 0.7


def test_edge_snow_settles_on_edges_and_piles_up(play):
    host = play("edge_snow", 240)
    app = host.app
    settled = app.settled
    assert settled.mean() >= 0.5, settled.mean()
    # every settled flake rests on an edge pixel of the current (mirrored) frame, directly or
    # through the column of settled flakes under it
    edge = app.vision.edge_map.any(axis=2)
    h, _w = edge.shape
    xi = app.x[settled].astype(int)
    yi = app.y[settled].astype(int)
    occupied = np.zeros_like(edge)
    occupied[yi, xi] = True
    ok = np.zeros(len(xi), bool)
    depth = np.zeros(len(xi), int)
    alive = np.ones(len(xi), bool)           # still walking down a column of settled snow
    for d in range(16):
        y = np.minimum(yi + d, h - 1)
        hit = alive & ~ok & edge[y, xi]
        ok |= hit
        depth[hit] = d
        alive &= occupied[y, xi]
    assert ok.all()
    on_edge = edge[yi, xi]
    assert on_edge.mean() > 0.5            # most sit right on an edge ...
    assert (depth > 0).sum() > 20          # ... and some are piled on top of others


def test_clicking_the_picture_picks_the_colour_to_track(play, truth):
    import pygame

    host = play("color_ball", 30)
    app = host.app
    # click the wall (mirrored image, window pixels): the wall is not the ball's colour
    host.click((app.camera_view.x + 300, app.camera_view.y + 20))
    picked = app.target_bgr
    assert abs(picked[2] - truth["ball"]["color_bgr"][2]) > 60
    # clicking on the ball again brings the ball back
    frame = host.runner.latest_frame
    ball = {f["index"]: f for f in truth["frames"]}[frame.index]["ball"]
    x, y = camera_to_view(mirror_x(ball["cx"], 320), ball["cy"], (320, 240), app.camera_view)
    host.click((int(x), int(y)))
    assert abs(app.target_bgr[2] - truth["ball"]["color_bgr"][2]) < 40
    for _ in range(6):
        host.step()
    assert app.tracking
    assert isinstance(pygame.Rect(app.box), pygame.Rect)


def _luminance(rgb: np.ndarray) -> float:
    c = rgb / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def test_motion_paddle_s_still_zone_labels_are_readable(play):
    """An unlit "< wave here" was drawn in the dim zone outline's grey (90, 90, 110) on the dimmed
    floor: a contrast of 1.5 to 1, where it tells a new player where to wave. At least 3 to 1 now
    (the WCAG floor for large text)."""
    import pygame

    from sensekit.app import draw as D

    host = play("motion_paddle", 30)
    app = host.app
    app.left = app.right = 0.0                                  # both still: the unlit labels
    app.draw(host.screen)
    f = app.field
    top, half = f.y + int(f.h * 0.6), f.w // 2                  # ZONE_TOP: the zones' layout in draw()
    pixels = pygame.surfarray.array3d(host.screen)              # (x, y, rgb)
    for label, rect in (("< wave here", pygame.Rect(f.x + 4, top, half - 8, f.bottom - top - 4)),
                        ("wave here >", pygame.Rect(f.x + half + 4, top, half - 8, f.bottom - top - 4))):
        box = D.render(label, 22).get_rect(midbottom=(rect.centerx, rect.bottom - 8))
        area = pixels[box.left:box.right, box.top:box.bottom].reshape(-1, 3).astype(float)
        ground = np.median(area, axis=0)
        ink = area[np.argmax(np.abs(area - ground).sum(axis=1))]
        lo, hi = sorted((_luminance(ground), _luminance(ink)))
        assert (hi + 0.05) / (lo + 0.05) >= 3.0, (label, ground, ink)
