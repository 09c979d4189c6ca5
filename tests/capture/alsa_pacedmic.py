"""Fake microphones that deliver in real time: ALSA's ``file`` plugin reading a FIFO.

``alsa_filemic.FileMic`` feeds a plain file, which the plugin reads as fast as it is
asked (not paced). Here each fake microphone reads a named pipe instead, and a feeder
thread writes it one *period* (``period`` samples, 512) at a time at the sample rate.
The plugin asks for one period per read, and a read on an empty pipe blocks, so the
device hands PortAudio a period exactly when the feeder writes it: it behaves like a
sound card whose DMA interrupt fires when the last sample of a period is captured. So
sample ``i`` of a period written at ``written[mic][n]`` was "captured" at
``written[mic][n] - (period - 1 - i) / rate`` (``capture_time``).

``PacedMics(folder, count, fill=...)`` writes ``folder/asoundrc`` defining the PCMs
``sensekitmic0``, ``sensekitmic1``... (PortAudio lists them by those names) and one FIFO
each. ``fill(mic, n)`` returns period ``n`` as int16 samples (default: silence).
``start()`` starts the feeders; run the code that opens the microphones in a fresh
process with ``env`` (PortAudio reads the ALSA configuration once, when it starts).
PortAudio opens every device once while it lists them and closes it again: that
breaks the pipe, and the feeder reopens it (the period it was writing is lost, so
identify data by its content, e.g. a marker, not by its period number).

``unavailable_reason()`` (from ``alsa_filemic``) says why this cannot work here.
Cost: one thread and one ``write`` per period per microphone (94 writes/s at 48 kHz).
"""
from __future__ import annotations

import os
import textwrap
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np

from tests.capture.alsa_filemic import alsa_env, unavailable_reason

__all__ = ["PacedMics", "unavailable_reason"]


class PacedMics:
    """``count`` real-time fake microphones; see the module docstring."""

    def __init__(self, folder: str | os.PathLike[str], count: int = 1, *, rate: int = 48000,
                 period: int = 512, fill: Callable[[int, int], np.ndarray] | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count, self.rate, self.period = int(count), int(rate), int(period)
        self.fill = fill or (lambda mic, n: np.zeros(self.period, np.int16))
        self.names = [f"sensekitmic{i}" for i in range(self.count)]
        self.fifos = [self.folder / f"{name}.fifo" for name in self.names]
        for fifo in self.fifos:
            if not fifo.exists():
                os.mkfifo(fifo)
        self.conf_path = self.folder / "asoundrc"
        self.conf_path.write_text(self.config_text())
        #: per microphone: period number -> time.monotonic() just after its write returned
        self.written: list[dict[int, float]] = [{} for _ in range(self.count)]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def config_text(self) -> str:
        parts = []
        for name, fifo in zip(self.names, self.fifos):
            parts.append(textwrap.dedent(f"""\
                pcm.{name} {{
                    type plug
                    slave {{
                        pcm {{ type file; slave.pcm "null"; file "/dev/null"; infile "{fifo}"; format "raw" }}
                        format S16_LE
                        rate {self.rate}
                        channels 1
                    }}
                    hint {{ show on; description "sensekit paced fake microphone" }}
                }}
                """))
        return "\n".join(parts)

    @property
    def env(self) -> dict[str, str]:
        return alsa_env(self.conf_path)

    def capture_time(self, mic: int, n: int, i: int) -> float:
        """When sample ``i`` of period ``n`` of microphone ``mic`` was 'captured'."""
        return self.written[mic][n] - (self.period - 1 - i) / self.rate

    # -- feeding -------------------------------------------------------------------
    def _open(self, fifo: Path) -> int | None:
        while not self._stop.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)   # ENXIO while nobody reads
            except OSError:
                self._stop.wait(0.002)
                continue
            os.set_blocking(fd, True)
            return fd
        return None

    def _feed(self, mic: int) -> None:
        n = 0
        period_s = self.period / self.rate
        while not self._stop.is_set():
            fd = self._open(self.fifos[mic])
            if fd is None:
                return
            t0 = time.monotonic()
            m = 0
            try:
                while not self._stop.is_set():
                    due = t0 + (m + 1) * period_s      # written when its last sample is "captured"
                    delay = due - time.monotonic()
                    if delay > 0:
                        self._stop.wait(delay)
                    elif delay < -0.25:                # far behind (a stall): do not burst
                        t0 = time.monotonic() - (m + 1) * period_s
                    data = np.ascontiguousarray(self.fill(mic, n), dtype="<i2")
                    os.write(fd, data.tobytes())
                    self.written[mic][n] = time.monotonic()
                    n += 1
                    m += 1
            except BrokenPipeError:
                n += 1                                 # that period was lost with the pipe
            finally:
                os.close(fd)

    def start(self) -> PacedMics:
        self._stop.clear()
        self._threads = [threading.Thread(target=self._feed, args=(i,), daemon=True,
                                          name=f"paced-mic:{i}") for i in range(self.count)]
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for fifo in self.fifos:            # unblock a feeder stuck in write(): open a reader
            try:
                fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        for t in self._threads:
            t.join(timeout=2.0)

    def __enter__(self) -> PacedMics:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":   # a quick look: python -m tests.capture.alsa_pacedmic
    print(unavailable_reason() or "the paced ALSA fake microphone can run here")
