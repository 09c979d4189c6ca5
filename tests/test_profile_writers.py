"""Two programs saving the same venue profile (a show's panel or Shift+S, and `sensekit calibrate`
or a second show) take turns: each reads, edits and renames the file while the other waits, so
neither puts back the file as it was before the other's edit. Before, only the writers of one
process took turns (``profile.save._SAVING``): another program's edit was lost when both saved at
once."""
from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from pathlib import Path

from sensekit.profile import load_profile
from sensekit.profile.save import edit_profile_text


def test_a_save_from_another_program_waits_for_the_one_in_hand(tmp_path: Path) -> None:
    venue = tmp_path / "venue.toml"
    venue.write_text("[audio]\ngain = 20.0\n")
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(folder, fcntl.LOCK_EX)          # this test is a writer with its save in hand
    try:
        before = venue.read_text()              # it has read the file...
        other = subprocess.Popen([sys.executable, "-c",
                                  "import sys; from sensekit.profile import save_profile; "
                                  "save_profile({'motion.threshold': 33}, sys.argv[1])", str(venue)])
        with contextlib.suppress(subprocess.TimeoutExpired):
            other.wait(timeout=3)               # (a program that does not wait is done by now)
        venue.write_text(edit_profile_text(before, {"audio.gain": 31.0}))   # ...and writes its edit
    finally:
        fcntl.flock(folder, fcntl.LOCK_UN)
        os.close(folder)
    assert other.wait(timeout=60) == 0
    saved = load_profile(venue)
    assert saved["audio.gain"] == 31.0 and saved["motion.threshold"] == 33
