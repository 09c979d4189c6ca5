"""What the recorder's folder fsyncs cost (harden21): the same recording written with them and
without (``fsync_folder`` replaced by a no-op: the recorder before harden21), alternated in one
process, on the disk of ``--dir``.

A recording of ``--seconds`` of 320x240 video at 30 fps and 16 kHz mono audio (synthetic, written
as fast as the recorder takes it); it prints the wall time of each take, the time spent in
``flush()`` and the ratio with/without. A benchmark: nothing is asserted.

    python benchmarks/recorder_fsync_cost.py --seconds 10 --takes 3
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

from sensekit import atomic
from sensekit.capture import recorder as recorder_module
from sensekit.capture import recording_meta
from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder


def _no_fsync(_folder: Path) -> None:
    """The recorder before harden21: no fsync of the folder after a rename."""


def _use_fsync(fsync: Callable[[Path], None]) -> None:
    """The folder fsync the recorder's two modules call (each imported it by name)."""
    for module in (recording_meta, recorder_module):
        vars(module)["fsync_folder"] = fsync


def take(folder: Path, seconds: float, with_folder_fsync: bool) -> tuple[float, float, int]:
    real = atomic.fsync_folder
    _use_fsync(real if with_folder_fsync else _no_fsync)
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    flush_s = [0.0]
    flushes = [0]
    try:
        start = time.perf_counter()
        r = Recorder(folder, video=(320, 240, 30.0), audio=(16000, 1), block_size=512)
        inner = r.flush

        def timed() -> None:
            t = time.perf_counter()
            inner()
            flush_s[0] += time.perf_counter() - t
            flushes[0] += 1
        r.flush = timed                                                   # type: ignore[method-assign]
        frames = int(seconds * 30)
        block = np.zeros(512, np.float32)
        k = 0
        for i in range(frames):
            t = i / 30
            while k * 512 / 16000 <= t:
                r.write(AudioBlock(k, k * 512 / 16000, block, 16000))
                k += 1
            r.write(VideoFrame(i, t, image))
        r.close()
        return time.perf_counter() - start, flush_s[0], flushes[0]
    finally:
        _use_fsync(real)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--takes", type=int, default=3)
    p.add_argument("--dir", type=Path, default=None, help="where to write (default: a temp folder)")
    args = p.parse_args()
    base = Path(tempfile.mkdtemp(prefix="sensekit-fsync-", dir=args.dir))
    got: dict[bool, list[tuple[float, float, int]]] = {True: [], False: []}
    try:
        for n in range(args.takes):
            for on in (False, True):
                got[on].append(take(base / f"{n}-{on}.skrec", args.seconds, on))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for on in (False, True):
        wall = statistics.median(w for w, _, _ in got[on])
        flush = statistics.median(f for _, f, _ in got[on])
        count = got[on][0][2]
        print(f"{'with' if on else 'without'} the folder fsyncs: {wall:.2f} s a take of {args.seconds:.0f} s, "
              f"flush {1000 * flush / count:.2f} ms each ({count} flushes; median of {args.takes})")
    ratio = statistics.median(f for _, f, _ in got[True]) / statistics.median(f for _, f, _ in got[False])
    wall_ratio = (statistics.median(w for w, _, _ in got[True]) / statistics.median(w for w, _, _ in got[False]))
    print(f"ratio with/without: flush {ratio:.2f}, the whole take {wall_ratio:.2f}")


if __name__ == "__main__":
    main()
