"""Keys ``m``/``e``/``p`` in every app: the detector's mask, edges and palette over the camera view."""
from __future__ import annotations

import numpy as np
import pygame

from sensekit.app.convert import surface_to_array


def _view(host) -> np.ndarray:
    view = host.app.camera_view
    return surface_to_array(host.screen.subsurface(view)).astype(int)


def test_m_shows_the_motion_detectors_own_mask_over_the_camera_view(play):
    host = play("motion_paddle", 100)                 # the hand waves from 3 s on
    plain = _view(host)
    assert host.overlays.toggle("mask") == "mask overlay on (m)"
    host.render()
    masked = _view(host)
    mask = host.app.vision.motion_result.mask
    assert mask.any()
    # scale the detector's own mask (camera pixels) to the view and compare the red gain
    view = host.app.camera_view
    h, w = mask.shape
    ys, xs = np.mgrid[0:view.h, 0:view.w]
    on = mask[ys * h // view.h, xs * w // view.w] > 0
    def red(bgr: np.ndarray) -> np.ndarray:
        return bgr[..., 2] - bgr[..., :2].mean(axis=2)
    redder = red(masked) - red(plain)
    assert redder[on].mean() > redder[~on].mean() + 40
    assert "mask overlay off" in host.overlays.toggle("mask")


def test_e_and_p_work_in_an_app_without_those_stages(play):
    host = play("color_ball", 20)
    plain = _view(host)
    for key, name in ((pygame.K_e, "edges"), (pygame.K_p, "palette")):
        host.press(key)
        assert host.toast is not None and f"{name} overlay on" in host.toast[0]
        host.render()
        assert np.abs(_view(host) - plain).sum(axis=2).mean() > 5
        host.press(key)
    assert host.overlays.shown == set()


def test_an_app_without_a_camera_view_says_so(play):
    host = play("clapper", 5)
    host.press(pygame.K_m)
    assert host.toast is not None and "shows no camera picture" in host.toast[0]
    assert host.overlays.shown == set()


def test_b_without_a_silhouette_in_the_run_says_how_to_get_one(play):
    host = play("color_ball", 5)
    host.press(pygame.K_b)
    assert host.toast is not None and "no silhouette in this run" in host.toast[0] and "--silhouette" in host.toast[0]
    assert host.overlays.shown == set()
