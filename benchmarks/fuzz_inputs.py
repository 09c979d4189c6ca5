"""A seeded fuzz sweep of every input boundary (harden16): OSC in, the panel (HTTP and
WebSocket frames on a real socket), recordings, live sources and the files a show reads.

    python benchmarks/fuzz_inputs.py                    # every boundary, the default counts
    python benchmarks/fuzz_inputs.py --only osc panel   # some of them
    python benchmarks/fuzz_inputs.py --cases 500        # fewer cases a boundary

Each boundary runs in a child process of its own (``--child NAME``) with a watchdog thread: a
case that runs past its limit prints its label and every thread's stack and ends the child, and
the parent counts it as a hang. Cases come from ``numpy.random.default_rng(SEED + k)``: the
same cases every run, and a failure prints what reproduces it. What counts as a failure:

- ``osc``: ``decode`` raising anything but a one-line ``ValueError``; ``OscControl.receive``
  raising at all; after a burst of the cases on its UDP port, a setting that does not apply;
- ``panel``: a 5xx, a log record at ERROR, with a traceback or over several lines (aiohttp's
  "Error handling request"), a request that neither answers nor closes within 8 s, a panel
  that no longer answers ``/api/info``;
- ``recording``: a replay of a damaged copy raising anything but a one-line ``RecordingError``
  that names the damaged file (or the file it is checked against), playing more items than the
  whole recording, or refusing an incomplete copy whose audio alone is damaged (its video
  plays, the audio skipped when its header cannot be read: harden17), or ``inspect`` disagreeing
  with replay on such a copy (whether the audio is skipped, the samples that play);
- ``sources``: a truncated video or an odd WAV through ``file:PATH`` and ``camera:PATH``, an
  MJPEG stream that misbehaves: an exception that is not the source's one-line error, a hang,
  a ``close()`` that does not return;
- ``files``: profiles with taught tables, gesture models and MIDI maps that are mutated: anything
  but a one-line ``ConfigError`` naming the file.

Every boundary also fails a case that grows the process's peak RSS by 512 MB.

The counts are printed as a table; the exit status is 1 when any boundary had a failure. The
cases' helpers are in ``benchmarks/_fuzz_cases.py`` and ``benchmarks/_fuzz_net.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOUNDARIES = ("osc", "panel", "recording", "sources", "files")
#: cases a boundary (``recording``: bit flips and lying lengths, beside a cut at every byte
#: boundary of each file of the two small recordings, about 29,800)
DEFAULT_CASES = {"osc": 4000, "panel": 3000, "recording": 4000, "sources": 400, "files": 4000}


def run_child(name: str, cases: int, seed: int, timeout: float) -> dict[str, object]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONHASHSEED="0")
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, str(Path(__file__)), "--child", name, "--cases", str(cases),
                            "--seed", str(seed)], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"name": name, "cases": 0, "failures": [f"the whole boundary ran past {timeout:.0f} s"],
                "seconds": timeout}
    last = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode not in (0, 1) or not last:
        tail = (p.stdout + p.stderr).strip().splitlines()[-30:]
        return {"name": name, "cases": 0, "failures": [f"the child ended with status {p.returncode}: "
                                                       + " | ".join(tail)], "seconds": time.monotonic() - t0}
    result: dict[str, object] = json.loads(last[-1])
    return result


def child(name: str, cases: int, seed: int) -> int:
    sys.path.insert(0, str(HERE))
    sys.path.insert(1, str(HERE.parent))
    from _fuzz_cases import Sweep

    sweep = Sweep(name, seed)
    t0 = time.monotonic()
    if name in ("osc", "recording", "files"):
        import _fuzz_cases as mod
    else:
        import _fuzz_net as mod  # type: ignore[no-redef]
    getattr(mod, f"fuzz_{name}")(sweep, cases)
    print(json.dumps({"name": name, "cases": sweep.count, "failures": sweep.failures,
                      "seconds": round(time.monotonic() - t0, 1), "notes": sweep.notes}), flush=True)
    return 1 if sweep.failures else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", choices=BOUNDARIES, default=list(BOUNDARIES))
    p.add_argument("--cases", type=int, help="cases a boundary (default: each boundary's own)")
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--child", choices=BOUNDARIES, help=argparse.SUPPRESS)
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds a boundary may take in all")
    args = p.parse_args(argv)
    if args.child:
        return child(args.child, args.cases or DEFAULT_CASES[args.child], args.seed)
    rows = [run_child(name, args.cases or DEFAULT_CASES[name], args.seed, args.timeout) for name in args.only]
    print("| boundary | cases | failures | seconds |\n|---|---|---|---|")
    for r in rows:
        fails = r["failures"]
        assert isinstance(fails, list)
        print(f"| {r['name']} | {r['cases']} | {len(fails)} | {r['seconds']} |")
    for r in rows:
        fails = r["failures"]
        assert isinstance(fails, list)
        for note in r.get("notes", []) or []:        # type: ignore[attr-defined]
            print(f"{r['name']}: note: {note}")
        for f in fails[:40]:
            print(f"{r['name']}: FAIL {f}")
    return 1 if any(r["failures"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
