"""MediaPipe's graphs log from their own threads: the hand stage keeps one stderr window open
across frames while a graph warms up. What it drops and what it passes on (no extra needed)."""
from __future__ import annotations

import subprocess
import sys

CODE = """
import os
from sensekit.vision.mediapipe_base import NativeStderrFilter
window = NativeStderrFilter()
window.start()
os.write(2, b'INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\\n')
os.write(2, b'W0000 00:00:1 a MediaPipe warning line\\n')
os.write(2, b'real trouble\\n')
window.start()                      # a second start while open changes nothing
os.write(2, b'INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\\n')
window.stop()
window.stop()                       # and a second stop neither
os.write(2, b'after the window\\n')
window.start()
os.write(2, b'I0000 00:00:1 chatter\\nfirst\\n')
window.pass_on()                    # passed on while the window stays open
os.write(2, b'INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\\nsec')
window.pass_on()                    # a line without its newline waits for the rest of it
os.write(2, b'ond\\n')
raise SystemExit('last words, the window still open')
"""


def test_the_window_drops_mediapipe_start_up_lines_and_passes_the_rest_on_in_order_and_at_exit():
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == ["real trouble", "after the window", "first", "second",
                                     "last words, the window still open"]
