"""The fault matrix's rows for harden25: the files a show loads, what the thirteenth pass left.

- a profile sensekit saved (``save_profile``: what ``calibrate``, Shift+S and the panel write), cut
  at every line boundary (a copy interrupted, another program writing it in place, a full disk):
  ``sensekit events --profile`` in a fresh process on each cut, and ``sensekit run clapper
  --headless --profile`` on three of them; the whole file and a hand-written one must still load;
- a profile whose ``clap.venue_model`` holds 1e308: the error must name the file, line and key;
- a recording whose ``meta.json`` holds a start of 1e10, a codec of terminal escapes, 1e12 padded
  samples and a negative ``duration_s`` (values replay does not read): ``inspect`` must name each
  as damaged and print none as true, and ``events`` must replay the same events.

Uses the bundled ``recordings/demo.skrec``; no shared data needed. About 40 s.
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
VALUES = {"motion.noise_sigma": 1.1, "audio.gain": 62.5, "activity.silence_level": 25.0,
          "activity.timeout_ms": 500.0, "motion.zones": {"door": (0.0, 0.0, 0.25, 1.0)}, "clap.min_level": 40.0}


def _cli(tmp: Path, argv: list[str]) -> tuple[int, str, list[str]]:
    p = subprocess.run([sys.executable, "-m", "sensekit", *argv], capture_output=True, text=True,
                       timeout=120, cwd=tmp, env=_env())
    return p.returncode, p.stdout, [ln for ln in p.stderr.strip().splitlines() if ln.strip()]


def _cut_rows(tmp: Path, row: Row) -> None:
    sys.path.insert(0, str(ROOT))
    from sensekit.profile.save import save_profile

    saved = tmp / "h25-venue.toml"
    saved.unlink(missing_ok=True)
    save_profile(VALUES, saved)
    whole = saved.read_bytes()
    ends = [i + 1 for i, b in enumerate(whole) if b == ord("\n")][:-1]
    cut = tmp / "h25-cut.toml"
    refused = loaded = 0
    said = ""
    for end in ends:
        cut.write_bytes(whole[:end])
        code, _, err = _cli(tmp, ["events", str(DEMO), "--max-items", "3", "--profile", str(cut)])
        if code == 2 and len(err) == 1 and "is cut short" in err[0]:
            refused += 1
            said = err[0]
        elif code == 0:
            loaded += 1
    row("files", f"events --profile, a saved profile ({len(whole)} bytes, {len(ends) + 1} lines) cut at each of "
        f"its {len(ends)} line boundaries", f"{refused} refused in one line, {loaded} loaded"
        + (f": {said[:150]}" if said else ""), refused == len(ends))
    runs = []
    for end in (ends[0], ends[len(ends) // 2], ends[-1]):
        cut.write_bytes(whole[:end])
        code, _, err = _cli(tmp, ["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2",
                                  "--profile", str(cut)])
        runs.append(code == 2 and len(err) == 1 and "is cut short" in err[0])
    row("files", "run clapper --headless --profile, the saved profile cut after its first, middle and "
        "last-but-one line", f"{sum(runs)} of 3 refused in one line", all(runs))
    hand = tmp / "h25-hand.toml"
    hand.write_text("[audio]\ngain = 62.5\n\n[activity]\nsilence_level = 25.0\n")
    codes = [_cli(tmp, ["events", str(DEMO), "--max-items", "3", "--profile", str(p)])[0] for p in (saved, hand)]
    row("files", "events --profile, the whole saved profile and a hand-written one (no marks)",
        f"exit {codes[0]} and {codes[1]}", codes == [0, 0])


def _venue_row(tmp: Path, row: Row) -> None:
    from sensekit.audio.clap_venue import SIZE

    nums = [float(i % 7 + 1) for i in range(SIZE)]
    nums[0] = 1e308
    profile = tmp / "h25-model.toml"
    profile.write_text(f"[clap]\nmin_level = 40.0\nvenue_model = {json.dumps(nums)}\n")
    code, _, err = _cli(tmp, ["events", str(DEMO), "--clap", "--max-items", "20", "--profile", str(profile)])
    said = err[-1][:150] if err else "(nothing on stderr)"
    row("files", "events --clap --profile, clap.venue_model of 1e308 on line 3: does the error name the file?",
        f"exit {code}, {len(err)} line(s): {said}",
        code == 2 and len(err) == 1 and f"{profile}:3: `clap.venue_model` is not a venue model" in err[0])


def _meta_row(tmp: Path, row: Row) -> None:
    rec = Path(shutil.copytree(DEMO, tmp / "h25-meta.skrec"))
    meta = json.loads((rec / "meta.json").read_text())
    meta.update(start_unix=1e10, audio_padded_samples=10 ** 12, duration_s=-5.0)
    meta["video"]["codec"] = "\x1b[31mH264"
    (rec / "meta.json").write_text(json.dumps(meta))
    code, out, _ = _cli(tmp, ["inspect", str(rec)])
    shown = out.split("\nalso ")[0]
    wrong = [w for w in ("2286-11-20", "\x1b", "62500000.000 s") if w in shown]
    flat = " ".join(out.split())
    named = [k for k in ("start_unix", "video.codec", "audio_padded_samples", "duration_s")
             if f"meta.json is damaged: `{k}`" in flat]
    same = (_cli(tmp, ["events", str(rec), "--max-items", "40"])[1]
            == _cli(tmp, ["events", str(DEMO), "--max-items", "40"])[1])
    row("recording", "inspect REC, meta.json with start_unix 1e10, video.codec of terminal escapes, "
        "audio_padded_samples 1e12, duration_s -5 (values replay does not read)",
        f"exit {code}; printed as true: {', '.join(repr(w) for w in wrong) or 'none'}; named damaged: "
        f"{len(named)} of 4; events replayed {'the same' if same else 'differently'}",
        code == 1 and not wrong and len(named) == 4 and same)


def harden25_rows(tmp: Path, row: Row) -> None:
    _cut_rows(tmp, row)
    _venue_row(tmp, row)
    _meta_row(tmp, row)
