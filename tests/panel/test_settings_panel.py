"""The panel's settings: every running setting of the table, applied through the table's own
``apply`` (next frame or block; a bad value changes nothing), zones from a drag, and save."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.panel.conftest import ThreadPiece
from tests.panel.test_server import run


async def _post(url: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as s, s.post(url + path, json=body) as r:
        return r.status, await r.json()


async def _get(url: str, path: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as s, s.get(url + path) as r:
        assert r.status == 200
        return await r.json()


def _motion(piece: ThreadPiece) -> Any:
    return piece.runner.stages[0].motion


def _frames_later(piece: ThreadPiece, n: int) -> None:
    target = piece.runner.stats.frames + n
    deadline = time.monotonic() + 10
    while piece.runner.stats.frames < target and time.monotonic() < deadline:
        time.sleep(0.005)


def test_the_running_groups_are_listed_with_units_ranges_and_values(thread_piece):
    piece = thread_piece()
    table = run(_get(piece.url, "api/settings"))
    sections = {g["section"] for g in table["groups"]}
    assert {"motion", "audio"} <= sections
    described = {s["key"]: s for g in table["groups"] for s in g["settings"]}
    assert set(described) == set(table["values"])
    amount = described["motion.min_amount"]
    assert (amount["lo"], amount["hi"], amount["unit"]) == (0, 1, "fraction")
    assert table["values"]["motion.min_amount"] == _motion(piece).min_amount


def test_a_change_takes_effect_on_the_next_frame(thread_piece):
    piece = thread_piece()
    status, answer = run(_post(piece.url, "api/set", {"values": {"motion.min_amount": 0.05}}))
    assert status == 200 and answer["values"] == {"motion.min_amount": 0.05}
    _frames_later(piece, 1)
    assert _motion(piece).min_amount == 0.05
    assert run(_get(piece.url, "api/settings"))["values"]["motion.min_amount"] == 0.05


@pytest.mark.parametrize("body, fragment", [
    ({"values": {"motion.min_amount": 5}}, "`motion.min_amount` must be a number 0..1"),
    ({"values": {"motion.min_amount": 0.2, "motion.noise_k": -3}}, "`motion.noise_k`"),
    ({"values": {"motion.min_amonut": 0.2}}, "unknown setting `motion.min_amonut`; did you mean"),
    ({"texts": {"motion.min_amount": "lots"}}, "`motion.min_amount` must be"),
    ({"values": {"pitch.min_level": 30}}, "nothing in this run uses `pitch.min_level`"),
])
def test_a_bad_value_is_explained_and_changes_nothing(thread_piece, body, fragment):
    piece = thread_piece()
    before = run(_get(piece.url, "api/settings"))["values"]
    status, answer = run(_post(piece.url, "api/set", body))
    assert status == 400 and fragment in answer["error"], answer
    _frames_later(piece, 2)
    assert run(_get(piece.url, "api/settings"))["values"] == before
    assert _motion(piece).min_amount == before["motion.min_amount"]


def test_a_dragged_zone_becomes_a_motion_zone(thread_piece):
    piece = thread_piece()
    _frames_later(piece, 2)
    status, answer = run(_post(piece.url, "api/zone", {"name": "door", "box": [160, 120, 160, 120]}))
    assert status == 200, answer
    assert answer["values"]["motion.zones"]["door"] == [0.5, 0.5, 0.5, 0.5]
    seen: list[dict[str, float]] = []
    piece.runner.dispatcher.on("motion", lambda e: seen.append(e.zones))
    deadline = time.monotonic() + 10
    while not any("door" in z for z in seen) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any("door" in z for z in seen)
    status, answer = run(_post(piece.url, "api/zone", {"name": "x", "box": [300, 200, 100, 100]}))
    assert status == 400 and "outside the 320x240 picture" in answer["error"]


def test_save_writes_the_tuned_values_and_keeps_comments(thread_piece, tmp_path: Path):
    target = tmp_path / "venue.toml"
    target.write_text("# north wall, winter\n[motion]\nmin_amount = 0.002  # first guess\n")
    piece = thread_piece(profile_path=target, profile={"motion.min_amount": 0.002})
    assert run(_post(piece.url, "api/set", {"values": {"motion.min_amount": 0.01}}))[0] == 200
    status, answer = run(_post(piece.url, "api/save", {}))
    assert status == 200, answer
    text = target.read_text()
    assert "# north wall, winter" in text and "# first guess" in text
    assert "min_amount = 0.01" in text
