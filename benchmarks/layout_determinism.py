"""Do the shipped stages give the same result to the bit wherever their arrays lie in memory?

``cv2.magnitude`` (OpenCV 4.11 and 5.0) did not: its last bits moved with the arrays' alignment,
and a replay's extent cues with them. This audit looks for the same fault everywhere a replay
goes, two ways, in whichever venv runs it (the default one, numpy 2 / OpenCV 5, and the hands
one, numpy 1.x / OpenCV 4.11: `.ci/run_hands`):

- **calls**: every OpenCV function the stages call is wrapped *in this process only* (the shipped
  code is not touched) so that each call is made again on copies of its array arguments laid out
  otherwise: contiguous at byte offsets 0..60 past a 64-byte boundary, and inside wider rows
  (a crop's layout). The results (and any array a call writes into) are compared to the bit; a
  function is reported with its calls and the calls whose result moved.
- **runs**: ``sensekit events`` built as the command builds it, on the bundled recording and on
  real clips (a click on the first frame's true box starts the click tracker), replayed several
  times in one process, every frame and block copied into a fresh array at a random offset with
  arrays of random sizes held alive between items; the events must be equal field by field,
  floats to the bit (the JSON lines round them to 6 places).
- **numpy**: the NumPy reductions, products, FFTs and elementwise functions the audio and
  vision stages use (``np.dot`` on the samples, ``einsum`` row dots, ``@``, ``rfft``, ...), on
  float32 and float64 arrays of several shapes, at every element offset past a 64-byte boundary.

    python benchmarks/layout_determinism.py                # both parts, all sources
    python benchmarks/layout_determinism.py --part runs --rounds 3
    python benchmarks/layout_determinism.py --part numpy
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import itertools
import struct
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _reference import SHARED_DATA, data_refused

#: the OpenCV functions on a replay's path (sensekit/vision, sensekit/audio, the capture's
#: colour conversion, the steer app's flow): each is called again under other layouts
PROBED = ("absdiff", "add", "addWeighted", "accumulateWeighted", "bitwise_and", "bitwise_not", "bitwise_or",
          "bitwise_xor", "blur", "boxFilter", "boundingRect", "calcHist", "calcOpticalFlowFarneback",
          "compare", "connectedComponents", "connectedComponentsWithStats", "contourArea",
          "convertScaleAbs", "copyMakeBorder", "copyTo", "countNonZero", "cvtColor", "dilate",
          "distanceTransform", "extractChannel", "filter2D", "findContours", "findNonZero", "flip",
          "GaussianBlur", "grabCut", "inRange", "integral", "LUT", "magnitude", "max", "medianBlur", "min",
          "morphologyEx", "multiply", "reduce", "resize", "Sobel", "split", "subtract", "threshold")
#: byte offsets past a 64-byte boundary a copy is laid at (those that are a multiple of the item size)
OFFSETS = (0, 4, 8, 16, 24, 40, 60)
PAD_ROW = 24        # bytes added to each row for the "inside wider rows" layout


def laid_out(a: np.ndarray, offset: int, pad: int = 0) -> np.ndarray:
    """A copy of ``a`` whose data starts ``offset`` bytes past a 64-byte boundary; with ``pad``,
    its rows lie inside rows ``pad`` bytes longer (as a crop of a wider picture does)."""
    if a.ndim < 2:
        pad = 0
    rows = a.shape[0] if a.ndim else 1
    row_bytes = a.nbytes // max(1, rows) + pad
    buf = np.empty(rows * row_bytes + 128, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    block = buf[start:start + rows * row_bytes]
    if pad and a.ndim >= 2:
        wide = block.reshape(rows, row_bytes)[:, :a.nbytes // rows]
        out = wide.view(a.dtype).reshape(a.shape)
    else:
        out = block.view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def fingerprint(obj: Any) -> bytes:
    """The value of a result to the bit, whatever its layout."""
    if isinstance(obj, np.ndarray):
        return str((obj.dtype.str, obj.shape)).encode() + np.ascontiguousarray(obj).tobytes()
    if isinstance(obj, (tuple, list)):
        return b"(" + b",".join(fingerprint(x) for x in obj) + b")"
    if isinstance(obj, float):
        return struct.pack("<d", obj)
    return repr(obj).encode()


def _copies(value: Any, offset: int, pad: int, made: dict[tuple[Any, ...], np.ndarray]) -> Any:
    """``value`` with its arrays laid out anew; an array passed twice (``cv2.max(b, g, dst=b)``:
    the same memory as two views) is one copy passed twice, as the call aliased it."""
    if isinstance(value, np.ndarray):
        key = (value.__array_interface__["data"][0], value.shape, value.strides, value.dtype.str)
        if key not in made:
            made[key] = laid_out(value, offset - offset % value.dtype.itemsize, pad)
        return made[key]
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return type(value)(_copies(v, offset, pad, made) for v in value)
    return value


def _arrays(values: list[Any]) -> list[Any]:
    return [v for v in values if isinstance(v, (np.ndarray, list))]


class CallProbe:
    """Wraps the ``PROBED`` functions of ``cv2`` for this process and counts what moved."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.moved: Counter[str] = Counter()
        self.example: dict[str, str] = {}
        self._seed: int | None = None
        self._real: dict[str, Callable[..., Any]] = {}

    def install(self) -> None:
        for name in PROBED:
            if hasattr(cv2, name):
                self._real[name] = getattr(cv2, name)
                setattr(cv2, name, self._wrapped(name, self._real[name]))
        real_seed = cv2.setRNGSeed

        def seed(seed: int) -> None:
            self._seed = seed
            real_seed(seed)
        self._real["setRNGSeed"] = real_seed
        cv2.setRNGSeed = seed
        dis = cv2.DISOpticalFlow
        self._real["DISOpticalFlow.create"] = dis.create
        probe = self

        class ProbedDIS:
            def __init__(self, *args: Any) -> None:
                self._dis = probe._real["DISOpticalFlow.create"](*args)

            def calc(self, *args: Any) -> Any:
                return probe._call("DISOpticalFlow.calc", self._dis.calc, args, {})

            def __getattr__(self, name: str) -> Any:
                return getattr(self._dis, name)
        dis.create = ProbedDIS  # type: ignore[method-assign,assignment]

    def uninstall(self) -> None:
        for name, fn in self._real.items():
            if name == "DISOpticalFlow.create":
                cv2.DISOpticalFlow.create = fn  # type: ignore[method-assign]
            else:
                setattr(cv2, name, fn)

    def _wrapped(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kw: Any) -> Any:
            return self._call(name, fn, args, kw)
        return call

    def _call(self, name: str, fn: Callable[..., Any], args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        if not any(isinstance(a, (np.ndarray, list, tuple)) for a in (*args, *kw.values())):
            return fn(*args, **kw)
        prints = set()
        for pad in (0, PAD_ROW):
            for offset in OFFSETS:
                made: dict[tuple[Any, ...], np.ndarray] = {}
                a = [_copies(v, offset, pad, made) for v in args]
                k = {key: _copies(v, offset, pad, made) for key, v in kw.items()}
                if self._seed is not None:
                    self._real["setRNGSeed"](self._seed)
                try:
                    out = fn(*a, **k)
                except cv2.error:
                    continue              # a layout this function refuses: not a replay's
                prints.add(fingerprint((out, _arrays(a), _arrays(list(k.values())))))
        if self._seed is not None:
            self._real["setRNGSeed"](self._seed)
        out = fn(*args, **kw)
        prints.add(fingerprint((out, _arrays(list(args)), _arrays(list(kw.values())))))
        self.calls[name] += 1
        if len(prints) > 1:
            self.moved[name] += 1
            self.example.setdefault(name, ", ".join(
                f"{type(v).__name__}{getattr(v, 'shape', '')}{getattr(v, 'dtype', '')}" for v in args))
        return out

    def report(self) -> list[str]:
        lines = []
        for name in sorted(self.calls, key=str.lower):
            moved = self.moved[name]
            note = f"  MOVED on {moved} (e.g. {self.example[name]})" if moved else "  same to the bit"
            lines.append(f"  cv2.{name:<28} {self.calls[name]:6d} calls{note}")
        return lines


@dataclasses.dataclass(frozen=True)
class RunCase:
    name: str
    argv: list[str]


def cases(data: Path, max_items: int) -> list[RunCase]:
    """The bundled recording with every event option and a click; real clips with a click on
    the first frame's true box and the vision options; real audio with the audio options."""
    demo_all = ["--motion", "--blobs", "--edges", "--clap", "--pattern", "2", "--pitch", "--level",
                "--activity", "--records"]
    out = [RunCase("demo: all events, a click", ["demo", "--track-color", "160,99", *demo_all]),
           RunCase("demo: a box, edges any, difference", ["demo", "--track-box", "140,60,40,40", "--edges",
                                                          "--edge-direction", "any", "--motion",
                                                          "--motion-method", "difference", "--blur", "5",
                                                          "--levels", "4", "--blobs"]),
           RunCase("demo: a colour, mirrored", ["demo", "--track-color", "#ff0000", "--mirror", "--motion"])]
    for gt in sorted((data / "video" / "tracking").glob("*_gt.csv")):
        first = gt.read_text().splitlines()[1].split(",")
        cx, cy = float(first[5]), float(first[6])
        clip = gt.with_name(gt.name.replace("_gt.csv", ".mp4"))
        out.append(RunCase(f"{clip.stem}: a click", [str(clip), "--track-color", f"{cx:.0f},{cy:.0f}",
                                                    "--motion", "--blobs", "--edges",
                                                    "--max-items", str(max_items)]))
    if importlib.util.find_spec("mediapipe") is not None:      # the hands venv (.ci/run_hands)
        basketball = data / "video" / "tracking" / "vot_basketball_rva.mp4"
        out += [RunCase("demo: hands and pose", ["demo", "--hands", "--pose"]),
                RunCase("vot_basketball_rva: hands and pose", [str(basketball), "--hands", "--pose",
                                                               "--max-items", "60"])]
    for wav in sorted((data / "audio").glob("clap_k_*.wav"))[:2] + sorted((data / "audio").glob("alarm*.wav"))[:1]:
        out.append(RunCase(f"{wav.stem}: audio", [str(wav), "--clap", "--pattern", "2", "--pitch", "--level",
                                                 "--activity", "--records"]))
    return out


def direct_calls(frames: list[np.ndarray]) -> None:
    """The OpenCV calls of the shipped stages that the runs above may not reach (the hands
    stage's border, blob splitting's distance transform, the edges' Sobel, the extent's DIS
    flow, a palette's LUT), made on real frames as the stages make them; the probe counts them."""
    dis = cv2.DISOpticalFlow.create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    lut = (np.arange(256) // 64 * 64 + 32).astype(np.uint8)
    for before, frame in itertools.pairwise(frames):
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        gx = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 1, 0, ksize=3))
        gy = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3))
        cv2.addWeighted(gx, 0.5, gy, 0.5, 0)
        cv2.Sobel(grey, cv2.CV_32F, 1, 0)
        cv2.GaussianBlur(frame, (7, 5), 0)
        cv2.LUT(frame, lut)
        cv2.copyMakeBorder(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB), 16, 16, 16, 16, cv2.BORDER_REPLICATE)
        mask = np.where(grey > np.median(grey), 255, 0).astype(np.uint8)
        cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        cv2.medianBlur(mask, 5)
        cv2.extractChannel(frame, 1)
        small = cv2.resize(frame, (frame.shape[1] * 2 // 5, frame.shape[0] * 2 // 5), interpolation=cv2.INTER_AREA)
        prev = cv2.resize(before, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
        a, b = cv2.cvtColor(prev, cv2.COLOR_BGR2GRAY), cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        dis.calc(a, b, None)  # type: ignore[call-overload]
        cv2.calcOpticalFlowFarneback(a, b, None, 0.5, 3, 15, 3, 5, 1.2, 0)  # type: ignore[call-overload]


def clip_frames(path: Path, n: int) -> list[np.ndarray]:
    """The first ``n`` frames of a clip."""
    cap = cv2.VideoCapture(str(path))
    frames: list[np.ndarray] = []
    while len(frames) < n:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    return frames


def shifted_items(source: Any, rng: np.random.Generator, held: list[np.ndarray]) -> Iterator[Any]:
    """The source's items, each array copied to a fresh one at a random offset, arrays of random
    sizes allocated and held between items (so every allocation after moves)."""
    for item in source:
        held.append(np.empty(int(rng.integers(1, 200_000)), np.uint8))
        if len(held) > 64:
            del held[int(rng.integers(0, len(held)))]
        field = "image" if hasattr(item, "image") else "samples"
        array = getattr(item, field)
        offset = int(rng.integers(0, 16)) * array.dtype.itemsize
        yield dataclasses.replace(item, **{field: laid_out(array, offset)})


def exact(value: Any) -> Any:
    """An event's fields to the bit: floats as their hex, arrays as their bytes (the JSON line
    rounds floats to 6 places, which would hide a last-bit change until it flips a decision)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple(exact(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if isinstance(value, (list, tuple)):
        return tuple(exact(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, exact(v)) for k, v in value.items())
    return value


def run_once(case: RunCase, rng: np.random.Generator | None) -> list[Any]:
    """The events ``sensekit events ARGV`` emits, to the bit, the items shifted when ``rng`` is given."""
    from sensekit.capture.spec import open_source
    from sensekit.cli import build_parser
    from sensekit.cli.events import _providers, build, choose
    from sensekit.runner import RecordStage, Runner

    args = build_parser("events").parse_args(["events", *case.argv, "--jsonl"])
    providers = _providers()
    chosen = choose(args, providers)
    events: list[Any] = []
    held: list[np.ndarray] = []
    with open_source(args.source) as source:
        stages, _ = build(args, source, chosen, providers)
        if args.records:
            stages.insert(0, RecordStage())
        runner = Runner(source, stages)
        runner.dispatcher.on("*", lambda event: events.append(exact(event)))
        items = iter(source) if rng is None else shifted_items(source, rng, held)
        for n, item in enumerate(items):
            if args.max_items is not None and n >= args.max_items:
                break
            runner.process(item)
        runner.stop()
    return events


NUMPY_CALLS: dict[str, Callable[[np.ndarray], Any]] = {
    "dot": lambda a: np.dot(a.ravel(), a.ravel()),
    "add.reduce": lambda a: np.add.reduce(a.ravel()),
    "sum(axis=1)": lambda a: a.sum(axis=1),
    "mean": lambda a: a.mean(),
    "std": lambda a: a.std(),
    "var(axis=1)": lambda a: a.var(axis=1),
    "einsum ij,ij->i": lambda a: np.einsum("ij,ij->i", a, a),
    "matrix @ matrix": lambda a: a @ np.ascontiguousarray(a.T[:, :7]),
    "matrix @ vector": lambda a: a @ np.linspace(0, 1, a.shape[1], dtype=a.dtype),
    "correlate valid": lambda a: np.correlate(a.ravel(), a[0], "valid"),
    "rfft": lambda a: np.fft.rfft(a, axis=1),
    "cumsum": lambda a: np.cumsum(a, axis=1),
    "median": lambda a: np.median(a, axis=1),
    "percentile": lambda a: np.percentile(a, 90, axis=1),
    "linalg.norm": lambda a: np.linalg.norm(a, axis=1),
    "exp": np.exp, "tanh": np.tanh, "sin": np.sin, "hypot": lambda a: np.hypot(a, a[::-1]),
    "log": lambda a: np.log(np.abs(a) + 1), "log10": lambda a: np.log10(np.abs(a) + 1),
    "sqrt": lambda a: np.sqrt(np.abs(a)),
}


def numpy_report(seed: int = 0) -> tuple[list[str], int]:
    """Each of ``NUMPY_CALLS`` on the same values at every element offset past a 64-byte boundary."""
    rng = np.random.default_rng(seed)
    moved: dict[str, list[str]] = {}
    tried = 0
    for dtype in (np.float32, np.float64):
        for shape in ((4, 7), (3, 33), (8, 512), (5, 1001), (2, 4096), (40, 129)):
            a = rng.normal(size=shape).astype(dtype)
            for name, fn in NUMPY_CALLS.items():
                prints = {fingerprint(np.asarray(fn(laid_out(a, off))))
                          for off in range(0, 64, np.dtype(dtype).itemsize)}
                tried += 1
                if len(prints) > 1:
                    moved.setdefault(name, []).append(f"{np.dtype(dtype).name}{shape}")
    lines = [f"  np {name:<20} " + (f"MOVED on {', '.join(moved[name])}" if name in moved else "same to the bit")
             for name in NUMPY_CALLS]
    return [f"NumPy calls, {tried} (function, dtype, shape) at 8-16 offsets each:", *lines], len(moved)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("calls", "runs", "numpy", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=3, help="shifted replays per case after the plain one")
    parser.add_argument("--max-items", type=int, default=150, help="frames of each real clip")
    parser.add_argument("--probe-items", type=int, default=60, help="items of each case the call probe sees")
    parser.add_argument("--only", default="", help="cases whose name contains this")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args(argv)
    if data_refused(args.data):
        return 2
    print(f"cv2 {cv2.__version__}, numpy {np.__version__}")
    bad = 0
    if args.part in ("numpy", "both"):
        lines, moved = numpy_report()
        print("\n".join(lines), flush=True)
        bad += moved
    chosen = [case for case in cases(args.data, args.max_items) if args.only in case.name]
    if args.part in ("runs", "both"):
        for case in chosen:
            plain = run_once(case, None)
            shifted = [run_once(case, np.random.default_rng(seed)) for seed in range(args.rounds)]
            differ = sum(s != plain for s in shifted)
            bad += differ
            print(f"{case.name}: {len(plain)} events; {len(shifted) - differ} of {len(shifted)} shifted "
                  "replays equal to the byte" + ("" if not differ else "  <-- DIFFERS"), flush=True)
    if args.part in ("calls", "both"):
        probe = CallProbe()
        probe.install()
        try:
            for clip in sorted((args.data / "video" / "tracking").glob("*.mp4")):
                direct_calls(clip_frames(clip, 6))
            print("probed the direct calls on 6 frames of each clip; so far:", *probe.report(), sep="\n", flush=True)
            for case in chosen:
                run_once(dataclasses.replace(case, argv=[*case.argv, "--max-items", str(args.probe_items)]), None)
                print(f"probed {case.name}; so far, OpenCV calls made again under {2 * len(OFFSETS)} layouts:",
                      *probe.report(), sep="\n", flush=True)
        finally:
            probe.uninstall()
        bad += sum(probe.moved.values())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
