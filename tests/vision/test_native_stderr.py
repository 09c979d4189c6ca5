"""MediaPipe's graphs log from their own threads: the hand stage keeps one stderr window open
across frames while a graph warms up. What it drops and what it passes on (no extra needed)."""
from __future__ import annotations

import subprocess
import sys

CODE = """
import os
from sensekit.vision.hands import _NativeStderrFilter
window = _NativeStderrFilter()
window.start()
os.write(2, b'INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\\n')
os.write(2, b'W0000 00:00:1 a MediaPipe warning line\\n')
os.write(2, b'real trouble\\n')
window.start()                      # a second start while open changes nothing
os.write(2, b'INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\\n')
window.stop()
window.stop()                       # and a second stop neither
os.write(2, b'after the window\\n')
"""


def test_the_window_drops_mediapipe_start_up_lines_and_passes_the_rest_on_in_order():
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == ["real trouble", "after the window"]
