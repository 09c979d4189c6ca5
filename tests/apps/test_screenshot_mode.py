"""A screenshot is written through a temporary file (0600) renamed into place: the picture itself
is readable by all when new (it was 0600, unreadable to a web server or another user), and a
picture saved over keeps its own file's mode."""
from __future__ import annotations

import stat

import pygame

from sensekit.app.outputs import save_screenshot


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_screenshot_is_0644_and_one_saved_over_keeps_its_mode(tmp_path):
    screen = pygame.Surface((8, 6))
    screen.fill((200, 40, 10))
    new = save_screenshot(screen, tmp_path / "shots" / "a.png")
    assert _mode(new) == 0o644
    assert pygame.image.load(str(new)).get_at((3, 3))[:3] == (200, 40, 10)
    kept = tmp_path / "b.png"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    save_screenshot(screen, kept)
    assert _mode(kept) == 0o640 and kept.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.png", "b.png", "shots"]
