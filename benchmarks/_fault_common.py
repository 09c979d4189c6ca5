"""What several fault-matrix row files set up alike, held once here.

- **The OSC name rows** (harden21's late DNS and moved lease, harden24's silent old address): the
  real resolver of a ``sensekit events demo --realtime`` process made to read a hosts file of the
  row's own (``LD_PRELOAD=libnss_wrapper.so NSS_WRAPPER_HOSTS=TMP/hosts``, Debian package
  ``libnss-wrapper``; the machine's ``/etc/hosts`` untouched): ``nss_absent`` (the row says it was not
  run), ``hosts_file`` (the file, rewritten by ``_hosts``, and a free port), ``show`` (the paced demo
  sending to ``lights.test:PORT``), ``_listener`` (a ``sensekit osc-listen`` receiver counting what
  arrives) and ``_stop``.
- **A labelled clap cut short** (harden22's end-of-stream and NaN rows, harden24's end row):
  ``clap_cut``, ``../shared/data``'s ``CLIP`` cut 10 ms after the onset of one of its labelled claps.
- **The constructor sweeps** (harden22's eight constructors, harden23's public classes): ``Sweep``
  gives every parameter a wrong-typed value and counts the errors that name it in one line.
"""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
from _fault_h20 import _env, _free_port, _sensekit

Row = Callable[[str, str, str, bool], None]
NSS = "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so"
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CLIP = "audio/clap_j_sparse7.wav"


def clap_cut(row: Row, case: str, k: int) -> tuple[np.ndarray, int, float] | None:
    """``CLIP`` cut 10 ms after the onset of its ``k``-th labelled clap (``clap_onsets.csv``): the
    samples, the rate and the onset (s); None once the row ``case`` has said the clip is absent."""
    if not (DATA / CLIP).is_file():
        row("audio", case, f"not run: {DATA / CLIP} is absent", False)
        return None
    from sensekit.evaluation.audio.evaluate import read_wav

    x, rate = read_wav(DATA / CLIP)
    with open(DATA / "audio" / "clap_onsets.csv", newline="") as f:
        on = [float(r["onset_s"]) for r in csv.DictReader(f) if r["file"] == CLIP][k]
    return x[: round((on + 0.010) * rate)], rate, on


def nss_absent(row: Row, case: str) -> bool:
    """Whether ``libnss_wrapper`` is missing; if so the row ``case`` says it was not run."""
    if Path(NSS).exists():
        return False
    row("OSC out", case, f"not run: {NSS} is absent (apt-get install libnss-wrapper)", False)
    return True


def _hosts(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(text)
    os.replace(tmp, path)                      # a new file: nss_wrapper reads it again


def hosts_file(tmp: Path, name: str, text: str) -> tuple[Path, int]:
    """The row's hosts file ``tmp/name`` holding ``text``, and a free UDP port for its show."""
    path = tmp / name
    _hosts(path, text)
    return path, _free_port()


def show(hosts: Path, port: int, max_items: int, *extra: str) -> subprocess.Popen[str]:
    """``sensekit events demo --level --realtime EXTRA --max-items N --osc lights.test:PORT``, its
    resolver reading ``hosts`` only."""
    env = _env(LD_PRELOAD=NSS, NSS_WRAPPER_HOSTS=str(hosts))
    return _sensekit(["events", "demo", "--level", "--realtime", *extra, "--max-items", str(max_items),
                      "--osc", f"lights.test:{port}"], env=env)


def _listener(port: int, host: str = "127.0.0.1"
              ) -> tuple[subprocess.Popen[str], list[int], threading.Event, list[float]]:
    """An ``osc-listen`` at ``host:port`` (120 s): the process, how many events it has printed, an
    event set at the 20th, and the monotonic time of the first (empty before it)."""
    proc = _sensekit(["osc-listen", str(port), "--host", host, "--seconds", "120"], bufsize=1)
    seen, some, first = [0], threading.Event(), list[float]()

    def count() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("/sensekit/"):
                if not first:
                    first.append(time.monotonic())
                seen[0] += 1
                if seen[0] >= 20:
                    some.set()
    threading.Thread(target=count, daemon=True).start()
    return proc, seen, some, first


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


@dataclass
class Sweep:
    """A constructor sweep's tally: of ``total`` wrong-typed arguments, ``named`` refused in one line
    naming the argument; ``other`` what was not (``Owner.arg accepted`` or ``Owner.arg: Error``)."""

    named: int = 0
    total: int = 0
    other: list[str] = field(default_factory=list)

    def run(self, owner: str, params: Iterable[str], call: Callable[[str], Any],
            names_it: Callable[[Exception, str, str], bool]) -> None:
        """``call(param)`` for each of ``owner``'s ``params`` (it passes the wrong value); a
        ``TypeError``/``ValueError`` counts as named when ``names_it(exc, owner, param)``."""
        for name in params:
            self.total += 1
            try:
                call(name)
                self.other.append(f"{owner}.{name} accepted")
            except (TypeError, ValueError) as exc:
                if names_it(exc, owner, name):
                    self.named += 1
                else:
                    self.other.append(f"{owner}.{name}: {type(exc).__name__}")
            except Exception as exc:
                self.other.append(f"{owner}.{name}: {type(exc).__name__}")
