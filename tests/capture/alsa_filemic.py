"""A fake microphone for tests: ALSA's ``file`` PCM plugin feeding a raw int16 file.

``FileMic(folder, samples, rate)`` writes ``samples`` (int16, mono or (n, ch)) to
``folder/clip.raw`` and an ALSA config ``folder/asoundrc`` that makes the
default capture device read that file::

    pcm.filemic { type file; slave.pcm "null"; file "/dev/null"; infile ".../clip.raw"; format "raw" }
    pcm.!default { type plug; slave { pcm "filemic"; format S16_LE; rate R; channels C } }

PortAudio reads the ALSA configuration once, when it initialises, so code that
uses the fake device must run in a fresh process: ``mic.run(code)`` runs a
Python snippet with ``ALSA_CONFIG_PATH`` pointing at the config (``mic.env``).

What the device does, measured on alsa-lib 1.2: the capture is *not paced* (the
``null`` slave is always ready, so blocks arrive as fast as the reader takes
them), the first samples are exactly the file's, and after the end of the file
the plugin repeats stale buffer contents. So read only ``len(samples)`` samples'
worth and locate the known sequence with ``locate``. A ``MicrophoneSource`` on
it fills its queue in milliseconds: give it a ``max_queued_blocks`` larger than
the clip (in blocks) when every sample must arrive, and read promptly.

``unavailable_reason()`` says why the fake cannot work here (no ALSA config, no
PortAudio), or returns ``None``; tests skip with that reason.
"""
from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

ALSA_CONF = Path("/usr/share/alsa/alsa.conf")


def known_samples(n: int, *, seed: int = 1234, amplitude: int = 20000) -> np.ndarray:
    """A deterministic int16 sequence that cannot be confused with silence or a shift."""
    rng = np.random.default_rng(seed)
    return rng.integers(-amplitude, amplitude, size=n, dtype=np.int16)


def locate(haystack: np.ndarray, needle: np.ndarray) -> int:
    """Offset of ``needle``'s full sequence inside ``haystack`` (1-D), or -1."""
    haystack = np.asarray(haystack).ravel()
    needle = np.asarray(needle).ravel()
    if len(needle) == 0 or len(haystack) < len(needle):
        return -1
    head = needle[:16]
    starts = np.flatnonzero(haystack[: len(haystack) - len(needle) + 1] == head[0])
    for s in starts:
        if np.array_equal(haystack[s:s + len(head)], head) and \
                np.array_equal(haystack[s:s + len(needle)], needle):
            return int(s)
    return -1


def unavailable_reason() -> str | None:
    """Why the ALSA file microphone cannot be used on this machine, or ``None``."""
    if not sys.platform.startswith("linux"):
        return "the ALSA file microphone needs Linux"
    if not ALSA_CONF.is_file():
        return f"ALSA is not installed ({ALSA_CONF} missing; apt-get install libasound2)"
    if ctypes.util.find_library("portaudio") is None:
        return "PortAudio is not installed (apt-get install libportaudio2)"
    return None


def alsa_env(conf_path: Path) -> dict[str, str]:
    """The current environment plus ``ALSA_CONFIG_PATH`` listing the system config and ``conf_path``."""
    env = dict(os.environ)
    env["ALSA_CONFIG_PATH"] = f"{ALSA_CONF}:{conf_path}"
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class FileMic:
    """A raw int16 clip plus an ALSA config that serves it as the default capture device."""

    def __init__(self, folder: str | os.PathLike[str], samples: np.ndarray, rate: int = 48000) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.samples = np.ascontiguousarray(samples, dtype="<i2")
        self.channels = 1 if self.samples.ndim == 1 else int(self.samples.shape[1])
        self.rate = int(rate)
        self.raw_path = self.folder / "clip.raw"
        self.conf_path = self.folder / "asoundrc"
        self.samples.tofile(self.raw_path)
        self.conf_path.write_text(self.config_text())

    def config_text(self) -> str:
        return textwrap.dedent(f"""\
            pcm.filemic {{
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "{self.raw_path}"
                format "raw"
            }}
            pcm.!default {{
                type plug
                slave {{
                    pcm "filemic"
                    format S16_LE
                    rate {self.rate}
                    channels {self.channels}
                }}
            }}
            """)

    @property
    def env(self) -> dict[str, str]:
        return alsa_env(self.conf_path)

    def run(self, code: str, *, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        """Run a Python snippet in a fresh interpreter that sees the fake microphone."""
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=self.env,
                              cwd=str(self.folder), capture_output=True, text=True,
                              timeout=timeout)
