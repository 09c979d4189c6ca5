"""What `--screenshot` (and key `s`) may write over: a picture is saved to a temporary file and
renamed into place, and the rename replaces whatever the name was. A FIFO, a device or a socket
given as `--screenshot` was replaced by a PNG (a consumer's FIFO became a file; through a symlink
to `/dev/null` the link became a PNG); a symlink to a picture was replaced by a file of its own,
the picture it pointed to left old. Now the start refuses what is not a file in one line, as the
profile's save does, and a symlink is followed: its target is saved over, the link stays.
"""
from __future__ import annotations

import os
import socket
import stat

import pygame
import pytest

from sensekit.app.outputs import save_screenshot
from sensekit.cli import main


def _run(shot: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(["run", "color_ball", "--headless", "--frames", "3", "--screenshot", shot])
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("make, kind", [
    (lambda p: os.mkfifo(p), "a FIFO"),
    (lambda p: os.symlink("/dev/null", p), "a character device"),
])
def test_a_fifo_or_a_device_as_screenshot_is_refused_at_the_start_and_left_alone(tmp_path, capsys, monkeypatch,
                                                                                 make, kind):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "shot.png"
    make(target)
    before = os.lstat(target)
    code, err = _run("shot.png", capsys)
    assert code == 2
    line = _one_line(err)
    assert "'shot.png'" in line and kind in line and "not a file" in line, line
    after = os.lstat(target)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino


def test_a_socket_as_screenshot_is_refused_at_the_start(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind("shot.png")
        code, err = _run("shot.png", capsys)
        assert code == 2
        assert "a socket" in _one_line(err)
        assert stat.S_ISSOCK(os.lstat(tmp_path / "shot.png").st_mode)


def test_a_symlink_to_a_picture_is_followed_and_stays_a_link(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shots").mkdir()
    real = tmp_path / "shots" / "latest.png"
    real.write_bytes(b"old")
    (tmp_path / "shot.png").symlink_to(real)
    code, err = _run("shot.png", capsys)
    assert code == 0, err
    assert (tmp_path / "shot.png").is_symlink()
    assert real.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (tmp_path / "shots").iterdir()) == ["latest.png"]   # no temporary left


def test_save_screenshot_leaves_a_fifo_alone(tmp_path):
    """Key `s` writes into the screenshot folder, where such a name may have appeared since the
    start: one OSError naming it (the key's toast), the FIFO kept."""
    fifo = tmp_path / "app-00001.png"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"app-00001.png.*is a FIFO .*not a file"):
        save_screenshot(pygame.Surface((8, 8)), fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["app-00001.png"]
