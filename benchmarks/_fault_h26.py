"""The fault matrix's rows for harden26: what harden23-25 left.

- refused profile values (a bad ``clap.threshold``, a bad colour, a venue model of 2 numbers,
  ``activity.off_level`` above the level, ``pitch.fmax`` too high for the source's rate): each
  must be one line ``FILE:LINE: `key` ...`` with the key's own line, exit 2; the same value given
  with ``--set`` must be named as typed, not as a profile line;
- a saved profile cut to 1 and 2 bytes: refused in one line naming the file; zero bytes and a file
  of comments only (also how a user names a new profile to save into): run with one warning naming
  it (they ran on the defaults without a word); a hand-written profile loads quietly;
- a recording whose ``meta.json`` holds damaged entries of ``audio_gaps``, ``audio_jumps`` and
  ``source_drops``, and a ``start_unix`` of 0: ``inspect`` must count and name the entries left
  out, show the start as implausible, and ``events`` replay the same events with one warning;
- the panel's frame-order test (``tests/panel/test_server.py``), driven frame by frame, run three
  times beside two busy processes: it must pass each time (its 80 % rate bound failed under load).

Uses the bundled ``recordings/demo.skrec``; no shared data needed. About 60 s.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

from _fault_h20 import _env

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "recordings" / "demo.skrec"

#: (profile text, the refused key's line, the key, the options the run needs to build its group)
BAD_VALUES = [
    ('[audio]\ngain = 50\n\n[clap]\nthreshold = "abc"\n', 5, "clap.threshold", ["--clap"]),
    ('[tracker]\ncolor = "#zz0000"\n', 2, "tracker.color", []),
    ("[clap]\nmin_level = 40.0\nvenue_model = [1.0, 2.0]\n", 3, "clap.venue_model", ["--clap"]),
    ("[activity]\nsilence_level = 10\noff_level = 50\n", 3, "activity.off_level", []),
    ("[audio]\ngain = 50\n\n[pitch]\nfmin = 80\nfmax = 3000\n", 6, "pitch.fmax", ["--pitch"]),
]


def _cli(tmp: Path, argv: list[str]) -> tuple[int, str, list[str]]:
    p = subprocess.run([sys.executable, "-m", "sensekit", *argv], capture_output=True, text=True,
                       timeout=120, cwd=tmp, env=_env())
    return p.returncode, p.stdout, [ln for ln in p.stderr.strip().splitlines() if ln.strip()]


def _events(profile: Path, *extra: str) -> list[str]:
    return ["events", str(DEMO), "--max-items", "3", *extra, "--profile", str(profile)]


def _origin_rows(tmp: Path, row: Row) -> None:
    good, said = 0, []
    for n, (text, line, key, extra) in enumerate(BAD_VALUES):
        profile = tmp / f"h26-bad-{n}.toml"
        profile.write_text(text)
        code, _, err = _cli(tmp, _events(profile, *extra))
        ok = code == 2 and len(err) == 1 and err[0].startswith(f"sensekit: error: {profile}:{line}: `{key}` ")
        good += ok
        said.append(err[-1][17:] if err else f"exit {code}, nothing said")
    row("profile", "events --profile, 5 refused values (clap.threshold, colour, venue model, off_level over "
        "the level, pitch.fmax over the rate): FILE:LINE of the key?", f"{good} of 5; the last: {said[-1]}",
        good == len(BAD_VALUES))
    profile = tmp / "h26-set.toml"
    profile.write_text("[audio]\ngain = 50\n\n[pitch]\nfmin = 80\n")
    code, _, err = _cli(tmp, _events(profile, "--pitch", "--set", "pitch.fmax=3000"))
    shown = err[-1][:120] if err else "(nothing on stderr)"
    row("profile", "events --profile --set pitch.fmax=3000 (too high for the rate): named as typed?",
        f"exit {code}: {shown}", code == 2 and len(err) == 1
        and err[0].startswith("sensekit: error: --set pitch.fmax=3000: `pitch.fmax`") and str(profile) not in err[0])


def _empty_rows(tmp: Path, row: Row) -> None:
    sys.path.insert(0, str(ROOT))
    from sensekit.profile.save import save_profile

    saved = tmp / "h26-saved.toml"
    saved.unlink(missing_ok=True)
    save_profile({"audio.gain": 62.5, "activity.silence_level": 25.0}, saved)
    whole = saved.read_bytes()
    cut = tmp / "h26-empty.toml"
    refused, said = 0, ""
    for text in (whole[:1], whole[:2]):
        cut.write_bytes(text)
        code, _, err = _cli(tmp, _events(cut))
        if code == 2 and len(err) == 1 and f"profile {str(cut)!r} is cut short" in err[0]:
            refused += 1
            said = err[0]
    warned = 0
    for text in (whole[:0], b"# the venue\n\n# calibrate tomorrow\n"):
        cut.write_bytes(text)
        code, _, err = _cli(tmp, _events(cut))
        warned += code == 0 and len([ln for ln in err if f"profile '{cut}'" in ln
                                     and "this run starts from the defaults" in ln]) == 1
    hand = tmp / "h26-hand.toml"
    hand.write_text("[audio]\ngain = 62.5\n")
    code, _, err = _cli(tmp, _events(hand))
    quiet = code == 0 and not any("profile '" in ln for ln in err)
    row("profile", "events --profile, a saved profile cut to 1 and 2 bytes; zero bytes and comments only "
        "(also a new profile to save into); a hand-written one", f"{refused} of 2 refused, {warned} of 2 run "
        f"with one warning, the hand-written one {'quiet' if quiet else 'NOT quiet'}: {said[17:110]}",
        refused == 2 and warned == 2 and quiet)


def _meta_rows(tmp: Path, row: Row) -> None:
    rec = Path(shutil.copytree(DEMO, tmp / "h26-meta.skrec"))
    meta = json.loads((rec / "meta.json").read_text())
    meta.update(audio_gaps=[[100, 1600], [1, "x"], [10 ** 12, 5]], audio_jumps=[[-1, 3]],
                source_drops={"dropped_blocks": 3, "overflows": "2"}, audio_padded_samples=1600)
    (rec / "meta.json").write_text(json.dumps(meta))
    code, out, _ = _cli(tmp, ["inspect", str(rec), "--quick"])
    flat = " ".join(out.split())
    named = [k for k, n in (("audio_gaps", "2 of 3"), ("audio_jumps", "1 of 1"), ("source_drops", "1 of 2"))
             if f"meta.json is damaged: `{k}`: {n} entries left out" in flat]
    _, replayed, err = _cli(tmp, ["events", str(rec), "--max-items", "40"])
    same = replayed == _cli(tmp, ["events", str(DEMO), "--max-items", "40"])[1]
    told = [ln for ln in err if "meta.json' is damaged" in ln]
    row("recording", "inspect and events on meta.json with damaged entries of audio_gaps, audio_jumps, "
        "source_drops", f"inspect exit {code}, named with counts: {len(named)} of 3; events replayed "
        f"{'the same' if same else 'differently'}, {len(told)} warning line(s)",
        code == 1 and len(named) == 3 and same and len(told) == 1)
    meta = json.loads((DEMO / "meta.json").read_text())
    meta["start_unix"] = 0.0
    (rec / "meta.json").write_text(json.dumps(meta))
    code, out, _ = _cli(tmp, ["inspect", str(rec), "--quick"])
    started = next((ln for ln in out.splitlines() if ln.startswith("started")), "(no started line)")
    row("recording", "inspect on a recording whose start_unix is 0 (a clock never set)",
        f"exit {code}: {' '.join(started.split())}", code == 0 and "implausible" in started
        and "clock not set?" in started)


def _panel_row(tmp: Path, row: Row) -> None:
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        codes = [subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 "tests/panel/test_server.py::test_video_frames_follow_the_source_in_order"],
                                cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300).returncode
                 for _ in range(3)]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    row("panel", "the frame-order test (in order, none twice, the newest after an ack), 3 runs beside 2 "
        "busy processes", f"{codes.count(0)} of 3 passed", codes == [0, 0, 0])


def harden26_rows(tmp: Path, row: Row) -> None:
    _origin_rows(tmp, row)
    _empty_rows(tmp, row)
    _meta_rows(tmp, row)
    _panel_row(tmp, row)
