"""The panel's ``vision.mirror`` control tells the truth inside an app that mirrors the camera
itself: checked, disabled, and why (it showed unchecked while the header said "mirrored", and
toggling it changed nothing). Real ``sensekit run`` processes, headless Chromium."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

pytestmark = pytest.mark.browser

ROW = '.setting[data-key="vision.mirror"]'


def _settings(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/settings", timeout=10) as r:
        table: dict[str, Any] = json.loads(r.read())
        return table


def _set(url: str, token: str | None, values: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url + "api/set", data=json.dumps({"values": values}).encode(),
                                 headers={"Content-Type": "application/json",
                                          **({"X-Sensekit-Token": token} if token else {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_an_app_that_mirrors_shows_vision_mirror_checked_disabled_and_why(process_piece, page):
    piece = process_piece("run", "motion_paddle", "--headless", "--loop")   # App.mirror = True
    page.goto(piece.url)
    page.wait_for_selector(ROW, timeout=20_000)
    assert "mirrored" in page.locator("#source").text_content()
    box = page.locator(f"{ROW} input[type=checkbox]")
    assert box.is_checked() and box.is_disabled()
    assert "mirrors the camera picture itself" in box.get_attribute("title")
    assert "mirrors the camera picture itself" in page.locator(f"{ROW} .help").text_content()
    table = _settings(piece.url)
    assert table["values"]["vision.mirror"] is True and "vision.mirror" in table["fixed"]
    token = page.evaluate("sensekitPanel.token")
    status, answer = _set(piece.url, token, {"vision.mirror": False})
    assert status == 400 and "`vision.mirror` stays True in this run" in answer["error"], answer
    assert _settings(piece.url)["values"]["vision.mirror"] is True
    page.wait_for_timeout(1500)                     # the live socket's values keep it checked
    assert box.is_checked() and box.is_disabled()
