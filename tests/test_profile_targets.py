"""Saving the venue profile over something that is not a file is refused in one line and leaves
it alone. The save renames a temporary file over the target: before this check the panel's
"Save venue profile" on a run whose profile path was a device replaced the device node with a
text file (as root, ``/dev/full`` became one), and a FIFO or a symlink to one likewise.

Tried through the doors a user has: the panel's button (``POST /api/save``), Shift+S in an app,
and the taught-sounds table (``save_table``). A FIFO stands in for a device: the same kind of
node for the rename, and safe to make in a test folder.
"""
from __future__ import annotations

import json
import os
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pygame
import pytest

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.app.sources import bundled_source
from sensekit.errors import ConfigError
from sensekit.paths import recordings_dir
from sensekit.profile.save import save_profile, save_table
from tests.unread import reads_of


def targets(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    link = tmp_path / "link.toml"
    link.symlink_to(fifo)
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    return {"a FIFO": fifo, "a symlink to a FIFO": link, "a folder": folder}


def untouched(tmp_path: Path) -> None:
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo.toml").st_mode)
    assert (tmp_path / "link.toml").is_symlink() and (tmp_path / "folder.toml").is_dir()
    assert not list(tmp_path.glob(".*.tmp")), "a temporary file was left behind"


def test_save_functions_refuse_what_is_not_a_file(tmp_path):
    for what, path in targets(tmp_path).items():
        kind = "a folder" if what == "a folder" else "a FIFO (named pipe)"
        for save in (lambda p: save_profile({"motion.threshold": 30}, p),
                     lambda p: save_table(p, "sounds", {"ding": {"n": 1}})):
            with pytest.raises(ConfigError, match=f"it is {kind.replace('(', '[(]').replace(')', '[)]')}, "
                                                  "not a file") as err:
                save(path)
            assert "\n" not in str(err.value), what
    untouched(tmp_path)


def test_the_panels_save_button_answers_400_and_keeps_the_node(tmp_path):
    from tests.panel.conftest import ThreadPiece

    for what, path in targets(tmp_path).items():
        piece = ThreadPiece(profile_path=path)
        try:
            req = urllib.request.Request(piece.url + "api/save", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(req, timeout=10)
            assert answer.value.code == 400, what
            assert "not a file" in json.loads(answer.value.read())["error"], what
            assert piece.error is None
        finally:
            piece.stop()
    untouched(tmp_path)


def test_shift_s_in_an_app_says_it_could_not_save(tmp_path):
    if not (recordings_dir() / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    app_cls = load("clapper")
    with bundled_source(app_cls) as source:
        link = targets(tmp_path)["a symlink to a FIFO"]
        host = AppHost(app_cls, source, RunOptions(headless=True, profile_path=link))
        host.step()
        host.press(pygame.K_s, pygame.KMOD_SHIFT)
        assert host.wait_for_save() is None     # written off the run's thread
        assert host.toast is not None and host.toast[0].startswith("could not save the profile")
        host.close()
    untouched(tmp_path)


@pytest.mark.parametrize("flag", ["--sounds", "--words"])
@pytest.mark.parametrize("kind", ["a FIFO", "/dev/zero", "a 2 MB file"])
def test_the_profile_of_the_voice_tables_is_read_like_any_profile(flag: str, kind: str, tmp_path: Path) -> None:
    """`--sounds` read its profile's [sounds] tables with a plain read before the profile itself
    was checked: a FIFO hung the command, /dev/zero filled memory until it was killed. Now one line,
    exit status 2, at once (the subprocess's timeout fails the test on a hang)."""
    import subprocess
    import sys

    pytest.importorskip("webrtcvad")
    profile = {"a FIFO": tmp_path / "fifo.toml", "/dev/zero": Path("/dev/zero"),
               "a 2 MB file": tmp_path / "big.toml"}[kind]
    if kind == "a FIFO":
        os.mkfifo(profile)
    elif kind == "a 2 MB file":
        profile.write_text("# " + "x" * (2 << 20) + "\n")
    demo = recordings_dir() / "demo.skrec"
    words = ["--words", "one"] if flag == "--words" else [flag]
    proc = subprocess.run([sys.executable, "-m", "sensekit", "events", str(demo), "--profile", str(profile),
                           *words, "--jsonl"], capture_output=True, text=True, timeout=60)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(err) == 1, proc.stderr[-2000:]
    assert f"profile '{profile}'" in err[0] and ("not a file" in err[0] or "more than the 1 MB" in err[0]), err


def test_saving_into_a_profile_that_grew_huge_is_refused_before_reading_it(tmp_path, monkeypatch):
    """A venue profile that became 600 MB while the show ran (sparse here) was read whole by
    the save (the panel's button and Shift+S run it on the run's thread): 10 s and 1.8 GB of
    peak memory before its TOML was refused. It is now read as loading reads it: refused by
    its size, at once: not a byte of it is read."""
    import resource

    for save in (lambda p: save_profile({"motion.threshold": 30}, p),
                 lambda p: save_table(p, "sounds", {"ding": {"n": 1}})):
        big = tmp_path / "venue.toml"
        with open(big, "wb") as f:
            f.truncate(600 << 20)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with reads_of(big, monkeypatch) as reads, \
                pytest.raises(ConfigError, match=r"is 600 MB, more than the 1 MB it may be") as err:
            save(big)
        assert reads.none and "\n" not in str(err.value)            # refused by its size, unread
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 << 10    # kB: < 64 MB
        assert big.stat().st_size == 600 << 20                                           # left alone
        big.unlink()


def test_a_profile_save_on_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path):
    # `sensekit calibrate --out`, `teach ... --profile`, Shift+S and the panel all said
    # "[Errno 28] No space left on device" (or EFBIG) and nothing of which file
    import resource
    import subprocess
    import sys
    import textwrap

    old = "[motion]\nthreshold = 30\n"
    (tmp_path / "venue.toml").write_text(old)
    code = textwrap.dedent("""
        import resource
        from sensekit.profile.save import save_profile
        resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))           # a disk with 16 bytes free
        try:
            save_profile({"motion.threshold": 40}, "venue.toml")
        except OSError as exc:
            print(exc)
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == ("[Errno 27] cannot save the profile 'venue.toml': File too large "
                                "(the previous one is kept)"), r.stdout
    assert (tmp_path / "venue.toml").read_text() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["venue.toml"]
    assert resource.getrlimit(resource.RLIMIT_FSIZE)     # (the limit was the child's only)
