"""The fault matrix's rows for harden24: the live inputs' left-alone defects.

- a microphone whose driver complains at every read: ``sensekit events mic`` on ALSA's ``file``
  plugin reading a folder (every read fails with EISDIR: the real alsa-lib and PortAudio,
  ``tests/capture/alsa_filemic.py``), its stderr lines counted;
- a microphone opened at a rate the device does not take (768 kHz on ALSA's plug device): the exit
  status it gives the CLI (``exit_status``), 75 before (a device to wait for), 2 now;
- a clap the stream's end cuts before its 20 dB fall (``clap_j_sparse7.wav`` of ``../shared/data``
  cut 10 ms after its clap at 1.671 s): no clap, and now ``cut_at_end`` says so;
- a gap of 2 s (blocks missing, then the stream goes on) 5 ms after the peak of a knock
  (``knock_room-small_0.wav``, its burst at 0.1952 s): the bridge's silence alone made it a clap;
- an OSC receiver whose name moves while its old address goes silent (a socket bound there that
  never reads, as a machine that took the old address, or a hung receiver: no "port unreachable"):
  ``sensekit events demo --realtime --loop`` with the real resolver reading a hosts file of the
  row's own (``libnss_wrapper``, as harden21's rows), the receiver at the new address an
  ``osc-listen``; the seconds from the move to the first event there.

About 70 s (the OSC row runs a paced show for 40 s).
"""
from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from _fault_common import DATA, _hosts, _listener, _stop, clap_cut, hosts_file, nss_absent, show
from _fault_h20 import _env

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]
ALSA_LINE = "ALSA lib pcm_file.c:315:(snd_pcm_file_areas_read_infile) read from file failed"


def _mic_row(row: Row) -> None:
    case = ("events mic --max-items 20000 --level, the driver failing every read (ALSA file plugin "
            "reading a folder: EISDIR)")
    sys.path.insert(0, str(ROOT))
    from tests.capture.alsa_filemic import FileMic, known_samples, unavailable_reason

    why = unavailable_reason()
    if why is not None:
        row("microphone", case, f"not run: {why}", False)
        return
    with tempfile.TemporaryDirectory(prefix="sensekit-h24-") as tmp:
        mic = FileMic(tmp, known_samples(4800), 48000)
        folder = Path(tmp) / "a-folder"
        folder.mkdir()
        mic.conf_path.write_text(mic.config_text().replace(str(mic.raw_path), str(folder)))
        env = dict(mic.env, PYTHONPATH=_env()["PYTHONPATH"])
        r = subprocess.run([sys.executable, "-m", "sensekit", "events", "mic", "--max-items", "20000",
                            "--level"], env=env, cwd=tmp, capture_output=True, text=True, timeout=300)
    lines = r.stderr.splitlines()
    alsa = sum(line.startswith(ALSA_LINE) for line in lines)
    counted = [line.split(" more message")[0] for line in lines if "were not shown" in line and ALSA_LINE in line]
    row("microphone", case, f"exit {r.returncode}: {len(lines)} stderr lines, {alsa} of ALSA's; "
        f"{counted[0] if counted else 0} more counted, not shown", r.returncode == 0 and len(lines) <= 12)


RATE_CODE = """
from sensekit.capture.microphone import MicrophoneSource
from sensekit.errors import SourceError, exit_status
try:
    MicrophoneSource(sample_rate=768000).open()
    print("opened")
except SourceError as exc:
    print(exit_status(exc), exc)
"""


def _rate_row(row: Row) -> None:
    case = "MicrophoneSource(sample_rate=768000).open() on a device that does not take it (ALSA plug device)"
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from tests.capture.alsa_filemic import FileMic, unavailable_reason

    why = unavailable_reason()
    if why is not None:
        row("microphone", case, f"not run: {why}", False)
        return
    with tempfile.TemporaryDirectory(prefix="sensekit-h24-") as tmp:
        mic = FileMic(tmp, np.zeros(4800, np.int16), 48000)
        env = dict(mic.env, PYTHONPATH=_env()["PYTHONPATH"])
        r = subprocess.run([sys.executable, "-c", RATE_CODE], env=env, cwd=tmp, capture_output=True,
                           text=True, timeout=120)
    said = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]
    row("microphone", case, f"exit status {said}", said.startswith("2 "))


def _clap_end_row(row: Row) -> None:
    case = "a clap cut 10 ms after its onset, before its 20 dB fall (clap_j_sparse7 at 1.671 s, ClapDetector.finish())"
    if (clip := clap_cut(row, case, 4)) is None:
        return
    from sensekit.audio.clap import ClapDetector

    cut, rate, on = clip
    det = ClapDetector()
    ts = [c.t for k, i in enumerate(range(0, len(cut), 512))
          for c in det.process(cut[i:i + 512], i / rate, rate, index=k)]
    ts += [c.t for c in det.finish()]
    found = sum(abs(t - on) <= 0.015 for t in ts)
    counted = getattr(det, "cut_at_end", None)
    row("audio", case, f"{found} clap there; cut_at_end {counted}", found == 0 and counted == 1)


def _gap_row(row: Row) -> None:
    case = ("2 s of blocks missing 5 ms after a knock's peak (knock_room-small_0 at 0.1952 s), then the "
            "stream goes on (a stalled consumer, a device reopened)")
    knock = DATA / "audio" / "knock_room-small_0.wav"
    if not knock.is_file():
        row("audio", case, f"not run: {knock} is absent", False)
        return
    from sensekit.audio.clap import ClapDetector
    from sensekit.capture.base import AudioBlock
    from sensekit.evaluation.audio.evaluate import read_wav

    x, rate = read_wav(knock)
    cut, g = round((0.1952 + 0.005) * rate), round(2.0 * rate)
    spans = [(i, min(i + 512, cut)) for i in range(0, cut, 512)]
    spans += [(i, min(i + 512, len(x))) for i in range(cut + g, len(x), 512)]
    det = ClapDetector()
    ts = [c.t for k, (i, j) in enumerate(spans) for c in det.feed(AudioBlock(k, i / rate, x[i:j], rate))]
    ts += [c.t for c in det.finish()]
    counted = getattr(det, "cut_at_end", None)
    row("audio", case, f"{len(ts)} clap(s) {[round(t, 3) for t in ts]}; cut_at_end {counted}",
        ts == [] and counted == 1)


def _osc_row(tmp: Path, row: Row) -> None:
    case = ("events demo --realtime --loop --osc lights.test:PORT; the name moves to 127.0.0.2 while its old "
            "address, 127.0.0.3, stays silent (bound, never read: no port unreachable)")
    if nss_absent(row, case):
        return
    hosts, port = hosts_file(tmp, "silent-hosts", "127.0.0.3 lights.test\n")
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.3", port))               # takes the datagrams, never reads them
    new, _, _, first = _listener(port, "127.0.0.2")
    demo = show(hosts, port, 2400, "--loop")
    time.sleep(6.0)                                 # the show runs, its events vanish at the old address
    _hosts(hosts, "127.0.0.2 lights.test\n")       # a new lease; the old address says nothing
    moved_at = time.monotonic()
    _out, err = demo.communicate(timeout=180)
    time.sleep(0.5)
    _stop(new)
    silent.close()
    lag = f"the first event at the new address {first[0] - moved_at:.1f} s after the move" if first \
        else "no event at the new address in the show's remaining ~34 s"
    row("OSC out", case, f"exit {demo.returncode}; {lag}", demo.returncode == 0 and bool(first)
        and first[0] - moved_at <= 8.0 and "Traceback" not in err)


def harden24_rows(tmp: Path, row: Row) -> None:
    _mic_row(row)
    _rate_row(row)
    _clap_end_row(row)
    _gap_row(row)
    _osc_row(tmp, row)
