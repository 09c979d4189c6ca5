"""The fault matrix's rows for harden27: what harden26 left, and a camera back at another size.

- ``--profile`` read once: the file filled with settings right after its first (empty) read (the
  one reader every profile read goes through, wrapped in a child process): the run must read it
  once, and say it is empty, as the text it ran from was (it ran on the defaults without a word);
- ``sensekit run sound_flier --profile`` with a ``[pitch]`` table, which the flier does not use:
  one warning naming ``[pitch]`` and the app (it ran without a word);
- an extra's install hint in a shell whose ``PATH`` is the system's (a venv not activated): it
  must run pip by this interpreter, named by its path (it said ``pip install``, another Python's);
- a refusal quoting a value typed over the profile's (``tracker.method = "model"`` in the
  profile, ``--set tracker.color=#ff0000``): the typed value must be named with its option;
- ``sensekit record --camera URL`` while the MJPEG server is stopped and started again at
  another size (a camera plugged back, a stream server restarted): the recording must go on,
  complete, the new frames scaled and counted (it stopped early, exit 2).

harden28 (the second half: what harden27 left):

- ``--midi``: the ``[midi]`` map changed (note 60 to 61) right after the profile's first read:
  the run must read the file once and send the notes of the text it loaded (``--midi``, ``--words``
  and ``--sounds`` read the file again: the map of the new file);
- a refusal quoting a value of a command's own option (``--track-color #ff0000`` beside the
  profile's ``tracker.method = "model"``): the option must be named as typed (it was ``the
  command line``).

Uses the bundled ``recordings/demo.skrec`` and the test MJPEG server; no shared data needed.
About 45 s.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from _fault_h20 import _env

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "recordings" / "demo.skrec"

#: the child that fills the profile right after its first read, then runs ``events`` on it
_FILLED_AFTER_READ = """
import sys
from pathlib import Path
from sensekit.profile import load as L
from sensekit.cli import main
path, reads = Path(sys.argv[1]), []
real = L.read_regular
def read(p, **kw):
    data = real(p, **kw)
    if Path(p) == path:
        reads.append(1)
        if len(reads) == 1:
            path.write_text("[audio]\\ngain = 50\\n\\n[activity]\\nsilence_level = 10\\n")
    return data
L.read_regular = read
code = main(["events", sys.argv[2], "--max-items", "3", "--profile", str(path)])
print(f"reads={len(reads)} code={code}")
"""


#: the child that changes the MIDI map right after the profile's first read, then runs ``events --midi``
_MIDI_AFTER_READ = """
import sys
from pathlib import Path
from sensekit.profile import load as L
from sensekit.cli import main, midi_args
path, reads, sent = Path(sys.argv[1]), [], []
real = L.read_regular
def read(p, **kw):
    data = real(p, **kw)
    if Path(p) == path:
        reads.append(1)
        if len(reads) == 1:
            path.write_text(path.read_text().replace("note 60", "note 61"))
    return data
class Port:
    def send(self, m): sent.append(m)
    def close(self): pass
L.read_regular = read
midi_args.open_port = lambda name, *, virtual=False: Port()
code = main(["events", sys.argv[2], "--clap", "--profile", str(path), "--midi", "x"])
notes = sorted({m.note for m in sent if m.type == "note_on"})
print(f"reads={len(reads)} code={code} notes={notes}")
"""


def _cli(tmp: Path, argv: list[str], env: dict[str, str] | None = None,
         timeout: float = 120) -> tuple[int, str, list[str]]:
    p = subprocess.run([sys.executable, "-m", "sensekit", *argv], capture_output=True, text=True,
                       timeout=timeout, cwd=tmp, env=env or _env())
    return p.returncode, p.stdout, [ln for ln in p.stderr.strip().splitlines() if ln.strip()]


def _read_once_row(tmp: Path, row: Row) -> None:
    profile = tmp / "h27-once.toml"
    profile.write_text("")
    p = subprocess.run([sys.executable, "-c", _FILLED_AFTER_READ, str(profile), str(DEMO)], capture_output=True,
                       text=True, timeout=120, cwd=tmp, env=_env())
    said = [ln for ln in p.stderr.splitlines() if "is empty" in ln]
    got = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else f"exit {p.returncode}"
    row("profile", "events --profile, an empty file filled with settings right after its first read",
        f"{got}; {len(said)} empty warning(s)", got == "reads=1 code=0" and len(said) == 1)


def _ignored_group_row(tmp: Path, row: Row) -> None:
    profile = tmp / "h27-flier.toml"
    profile.write_text("[audio]\ngain = 50\n\n[pitch]\nfmin = 80\nfmax = 1500\n")
    code, _, err = _cli(tmp, ["run", "sound_flier", "--source", str(DEMO), "--headless", "--frames", "2",
                              "--profile", str(profile)])
    said = [ln for ln in err if "does not use" in ln]
    row("profile", "run sound_flier --profile with a [pitch] table (the flier flies by the level)",
        f"exit {code}; {said[0][:110] if said else 'nothing said'}",
        code == 0 and len(said) == 1 and "[pitch]" in said[0] and "sound_flier" in said[0])


def _install_hint_row(tmp: Path, row: Row) -> None:
    env = _env(PATH=os.pathsep.join(["/usr/bin", "/bin"]))          # a venv not activated
    code, _, err = _cli(tmp, ["events", str(DEMO), "--max-items", "3", "--hands"], env=env)
    line = err[-1] if err else "(nothing on stderr)"
    want = f"{sys.executable} -m pip install -e '.[hands]'"
    row("install", "events --hands without the extra, PATH the system's (the venv not activated)",
        f"exit {code}: {line[line.find('needs'):][:110]}", code == 2 and want in line)


def _typed_origin_row(tmp: Path, row: Row) -> None:
    profile = tmp / "h27-tracker.toml"
    profile.write_text('[tracker]\nmethod = "model"\ncolor = "none"\n')
    code, _, err = _cli(tmp, ["events", str(DEMO), "--max-items", "3", "--profile", str(profile),
                              "--set", "tracker.color=#ff0000"])
    line = err[-1] if err else "(nothing on stderr)"
    row("profile", "events: the profile's tracker.method = model refused beside --set tracker.color=#ff0000 "
        "(the profile's colour: none)", f"exit {code}: ...{line[-70:]}",
        code == 2 and len(err) == 1 and line.startswith(f"sensekit: error: {profile}:2:")
        and line.endswith(f"[`tracker.color`: --set tracker.color=#ff0000, over {profile}:3]"))


def _camera_size_row(tmp: Path, row: Row) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.capture.mjpeg_server import MjpegServer

    out = tmp / "h27-camera.skrec"
    server = MjpegServer(size=(160, 120), fps=15).start()
    try:
        p = subprocess.Popen([sys.executable, "-m", "sensekit", "record", str(out), "--camera", server.url,
                              "--seconds", "8"], cwd=tmp, env=_env(), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(3.0)
        server.stop()                    # the camera went away ...
        time.sleep(1.0)
        server.size = (320, 240)         # ... and came back at another size
        server.start()
        _, stderr = p.communicate(timeout=120)
    finally:
        server.stop()
    meta = json.loads((out / "meta.json").read_text()) if (out / "meta.json").is_file() else {}
    resized = (meta.get("source_drops") or {}).get("resized_frames", 0)
    said = [ln for ln in stderr.splitlines() if "scaled" in ln]
    last = stderr.strip().splitlines()[-1][:100] if stderr.strip() else ""
    row("recording", "record --camera URL, the MJPEG server stopped and started again at 320x240 "
        "(the recording 160x120)",
        f"exit {p.returncode}, complete {meta.get('complete')}, {meta.get('frames')} frames, {resized} scaled, "
        f"{len(said)} warning(s)" + ("" if p.returncode == 0 else f": {last}"),
        p.returncode == 0 and meta.get("complete") is True and resized > 0 and len(said) == 1)


def _midi_read_once_row(tmp: Path, row: Row) -> None:
    profile = tmp / "h28-midi.toml"
    profile.write_text('[midi]\nchannel = 2\n\n[midi.map]\nclap = "note 60"\n')
    p = subprocess.run([sys.executable, "-c", _MIDI_AFTER_READ, str(profile), str(DEMO)], capture_output=True,
                       text=True, timeout=120, cwd=tmp, env=_env())
    got = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else f"exit {p.returncode}: {p.stderr[-100:]}"
    row("profile", "events --midi, the profile's [midi] map changed (note 60 to 61) right after its first read",
        got, got == "reads=1 code=0 notes=[60]")


def _own_option_row(tmp: Path, row: Row) -> None:
    profile = tmp / "h28-tracker.toml"
    profile.write_text('[tracker]\nmethod = "model"\n')
    code, _, err = _cli(tmp, ["events", str(DEMO), "--max-items", "3", "--profile", str(profile),
                              "--track-color", "#ff0000"])
    line = err[-1] if err else "(nothing on stderr)"
    row("profile", "events: the profile's tracker.method = model refused beside --track-color #ff0000",
        f"exit {code}: ...{line[-60:]}",
        code == 2 and len(err) == 1 and line.endswith("[`tracker.color`: --track-color #ff0000]"))


def harden27_rows(tmp: Path, row: Row) -> None:
    _read_once_row(tmp, row)
    _ignored_group_row(tmp, row)
    _install_hint_row(tmp, row)
    _typed_origin_row(tmp, row)
    _camera_size_row(tmp, row)
    _midi_read_once_row(tmp, row)          # harden28
    _own_option_row(tmp, row)
