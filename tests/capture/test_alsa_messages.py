"""ALSA's own messages go through the log's rate limit (``sensekit.capture.alsa_log``).

alsa-lib printed straight to stderr: a microphone whose driver complains at every period (here
the ALSA ``file`` plugin reading a folder, which fails each read with EISDIR: the real library,
the real PortAudio, one line per read) wrote 47,672 lines in a 20,000-block run of
``sensekit events mic`` - about 340,000 an hour for a 48 kHz device, for as long as it ran.
Now they are WARNING records of ``sensekit.capture.alsa_log``, capped like a camera's lines.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import logging
import re
import subprocess
import sys

import pytest

from sensekit.capture import alsa_log
from sensekit.ratelimit import LONG_BURST
from tests.capture.alsa_filemic import FileMic, known_samples, unavailable_reason

_reason = unavailable_reason()
_ALSA = "pcm_file.c:315:(snd_pcm_file_areas_read_infile) read from file failed, error: -1: Is a directory"


def _pointer(buffers: list[ctypes.Array[ctypes.c_char]], text: bytes) -> int:
    buf = ctypes.create_string_buffer(text)
    buffers.append(buf)
    return ctypes.addressof(buf)


def test_the_format_fills_what_alsa_passes_as_its_default_handler_prints():
    keep: list[ctypes.Array[ctypes.c_char]] = []
    assert alsa_log.message(b"pcm.c", 8570, b"snd_pcm_recover", 0, b"%s occurred",
                            (_pointer(keep, b"overrun"),)) == "pcm.c:8570:(snd_pcm_recover) overrun occurred"
    assert alsa_log.message(b"pcm_file.c", 315, b"f", 5, b"read failed, error: %d", ((1 << 64) - 1,)) \
        == "pcm_file.c:315:(f) read failed, error: -1: Input/output error"
    assert alsa_log._format(b"%ld %u %x %c %% %5.2f %s", (-2 & ((1 << 64) - 1), 7, 255, 65, None)) \
        == "-2 7 ff A % ? (null)"
    assert alsa_log._format(b"%s and %s", (_pointer(keep, b"one"),)) == "one and ?"


@pytest.mark.skipif(ctypes.util.find_library("asound") is None, reason="no libasound here")
def test_a_message_of_the_real_alsa_library_is_one_log_record_with_its_arguments(caplog):
    assert alsa_log.route_alsa_messages()
    lib = ctypes.CDLL(ctypes.util.find_library("asound"))
    pcm = ctypes.c_void_p()
    with caplog.at_level(logging.WARNING, logger="sensekit.capture.alsa_log"):
        err = lib.snd_pcm_open(ctypes.byref(pcm), b"sensekit_no_such_pcm", 1, 0)
    assert err < 0
    said = [r.getMessage() for r in caplog.records if r.name == "sensekit.capture.alsa_log"]
    assert any(re.fullmatch(r"ALSA lib pcm\.c:\d+:\(snd_pcm_open_noupdate\) Unknown PCM "
                            r"sensekit_no_such_pcm", s) for s in said), said


@pytest.mark.skipif(_reason is not None, reason=f"ALSA fake microphone: {_reason}")
def test_a_driver_that_complains_at_every_read_is_capped_in_the_log(tmp_path):
    mic = FileMic(tmp_path, known_samples(4800), 48000)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    mic.conf_path.write_text(mic.config_text().replace(str(mic.raw_path), str(folder)))
    r = subprocess.run([sys.executable, "-m", "sensekit", "events", "mic", "--max-items", "20000",
                        "--level"], env=mic.env, cwd=str(tmp_path), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stderr.splitlines()
    said = [line for line in lines if line.startswith("ALSA lib " + _ALSA)]
    # the short window shows 5, the long one at most 10 whatever the run's length (< 600 s)
    assert 1 <= len(said) <= LONG_BURST, lines[:20]
    counted = [line for line in lines if "were not shown" in line and _ALSA in line]
    assert len(counted) == 1, lines[-5:]
    assert int(counted[0].split()[0]) >= 1000, counted       # one a read: thousands held back
    assert len(lines) <= LONG_BURST + 2, lines[:20]


def test_the_callers_errno_is_kept_whatever_logging_does_to_it():
    """alsa-lib reads ``errno`` after some messages (``open %s for reading failed`` then ``return
    -errno``): a handler that let logging reset it made a failed open a success, and the library
    then used memory it had freed (a microphone's reopen crashed: ``realloc(): invalid pointer``)."""
    if not alsa_log.route_alsa_messages():
        pytest.skip("no libasound here")
    where = alsa_log._errno_location()

    class Clobber(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            where[0] = 0                        # as Python's own calls may leave it

    clobber = Clobber()
    alsa_log.log.addHandler(clobber)
    try:
        where[0] = 2                            # ENOENT, as a failed open() leaves it
        alsa_log._handle(b"pcm_file.c", 935, b"snd_pcm_file_open", 2, b"open failed", *([None] * 8))
        assert where[0] == 2
    finally:
        alsa_log.log.removeHandler(clobber)
