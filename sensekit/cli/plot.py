"""``sensekit plot SOURCE --out level.png``: the activity level over time, to tune thresholds.

    sensekit plot SOURCE [--out level.png] [--activity LEVEL[,TIMEOUT_MS]] [--off-level L]
                         [--gain G] [--noise-floor-ms MS] [--no-clap] [--title T]
                         [--set KEY=VALUE ...] [--preset NAME] [--profile FILE]

Draws the level (0..100, right axis in dBFS) of every audio block, the activity
threshold (and the hysteresis off level), the learned noise floor, shaded spans where
the activity detector was active, a dark strip where the level itself is above the
threshold (with the default 2,000 ms timeout the demo's whole 20 s is one active span
holding many separate loud passages: the strip and a note under the title say so), a
marker at each activating/deactivating event,
and a marker per detected clap (height = strength) with n-clap patterns bracketed.
SOURCE is a source spec (a WAV/FLAC/OGG path, ``file:``, ``replay:``...). The audio is
run through exactly the stages ``sensekit events`` uses, so what the plot shows is
what the events would be, with the same settings: the table's defaults (Flash's level 10 and
2000 ms), then ``--preset`` (``book``: the clapper's 25 and 500 ms), ``--profile``, the options
and ``--set``. Uses matplotlib's Agg backend (no display needed).

Errors: a source without audio, or with no audio samples (an empty file), is a one-line
``SourceError``; bad option values are ``ConfigError``s naming the value.
"""
from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
from numpy.typing import ArrayLike

from sensekit.cli import Subparsers
from sensekit.cli import free_text
from sensekit.cli.paths import OutputPath
from sensekit.cli.tuning import add_setting_flags, add_tuning_arguments, chosen_values
from sensekit.errors import SourceError
from sensekit.validate import check_range


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "plot", help="plot the audio level, thresholds and events of a source",
        description="Plot the activity level over time with the threshold, the noise floor "
                    "and the activity and clap events, to tune thresholds by eye.")
    p.add_argument("source", metavar="SOURCE",
                   help="audio/video file, recording, source spec, or demo (the bundled recording)")
    p.add_argument("--out", type=OutputPath(".png", ".svg", ".pdf"), default="level.png",
                   metavar="PNG", help="output image, .png/.svg/.pdf (default level.png)")
    p.add_argument("--activity", metavar="LEVEL[,TIMEOUT_MS]",
                   help="threshold to draw and simulate: activity.silence_level (0..100, or floor+DB) "
                        "and activity.timeout_ms (default: the settings', e.g. --preset book: 25,500)")
    add_setting_flags(p, ["audio", "activity", "noise_floor"])
    p.add_argument("--no-clap", action="store_true", help="do not run the clap detector")
    p.add_argument("--title", type=free_text, help="plot title (default: the source)")
    p.add_argument("--width", type=float, default=12.0, help="figure width in inches, 2..100 (default 12)")
    add_tuning_arguments(p)
    p.set_defaults(func=main)


def _sort_events(events: Iterable[Any], t: list[float], lv: list[float], acts: list[Any], claps: list[Any],
                 pats: list[Any]) -> None:
    """Levels into ``t``/``lv``; activity, claps and patterns into their lists."""
    from sensekit.events import Activity, Clap, ClapPattern, Level

    for ev in events:
        if isinstance(ev, Level):
            t.append(ev.t)
            lv.append(ev.level)
        elif isinstance(ev, Activity):
            acts.append(ev)
        elif isinstance(ev, ClapPattern):
            pats.append(ev)
        elif isinstance(ev, Clap):
            claps.append(ev)


def collect(source: Any, *, settings: Any = None, clap: bool = True,
            on_item: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """Run the audio stage over an (unopened or open) source with ``settings`` (``{key: value}``
    of the ``audio``, ``activity``, ``noise_floor`` and ``clap`` groups; the rest of each group
    from the table); return arrays and events. ``on_item`` sees every item (the progress bar)."""
    from sensekit.audio.activity import ActivityDetector
    from sensekit.audio.clap import ClapDetector, ClapPatternTracker
    from sensekit.audio.gain import source_gain
    from sensekit.audio.noise_floor import NoiseFloor
    from sensekit.audio.pipeline import AudioStage
    from sensekit.capture.base import AudioBlock
    from sensekit.settings.live import Tuning

    values = dict(settings or {})
    values.setdefault("audio.gain", source_gain(source))
    nf = NoiseFloor()
    det = ActivityDetector()
    stage = AudioStage(activity=det, noise_floor=nf, clap=ClapDetector() if clap else None,
                       pattern=ClapPatternTracker(2) if clap else None)
    Tuning(lambda: [stage]).apply_now(values)
    g = stage.meter.gain
    t: list[float] = []
    lv: list[float] = []
    acts: list[Any] = []
    claps: list[Any] = []
    pats: list[Any] = []
    thresholds: list[tuple[float, float, float]] = []
    rate = None
    n_samples = 0
    for item in source:
        if on_item is not None:
            on_item(item)
        if not isinstance(item, AudioBlock):
            continue
        rate = item.rate
        n_samples += len(item.samples)
        _sort_events(stage.process(item), t, lv, acts, claps, pats)
        if det.on_db is not None and not nf.ready:
            thresholds.append((item.t, np.nan, np.nan))     # floor-relative: not set yet
        else:
            thresholds.append((item.t, det.on_level, det.quiet_level))
    if rate is None:
        raise SourceError(f"source {getattr(source, 'description', source)!s} has no audio blocks")
    if n_samples == 0:
        raise SourceError(f"source {getattr(source, 'description', source)!s} has no audio samples")
    return {"t": np.asarray(t), "level": np.asarray(lv), "activity": acts, "claps": claps,
            "patterns": pats, "thresholds": np.asarray(thresholds), "noise_floor": nf,
            "detector": det, "rate": rate, "duration": n_samples / rate, "gain": g,
            "skipped": stage.skipped_blocks}


def loud_spans(t: ArrayLike, level: ArrayLike, thresholds: ArrayLike) -> list[tuple[float, float]]:
    """Where the level itself is at or above the activity threshold in force at that time:
    ``(start, end)`` seconds, end = the time of the first block below again. ``thresholds`` are
    the rows ``(t, on_level, off_level)`` of ``collect`` (a NaN threshold is not yet known)."""
    t, level, th = np.asarray(t, float), np.asarray(level, float), np.asarray(thresholds, float)
    if not len(t) or not len(th):
        return []
    row = np.clip(np.searchsorted(th[:, 0], t, side="right") - 1, 0, len(th) - 1)
    on = th[row, 1]
    loud = np.isfinite(on) & (level >= np.where(np.isfinite(on), on, np.inf))
    edges = np.flatnonzero(np.diff(np.concatenate([[0], loud.astype(np.int8), [0]])))
    spans = []
    for a, b in zip(edges[0::2], edges[1::2]):
        spans.append((float(t[a]), float(t[b]) if b < len(t) else float(t[-1])))
    return spans


def active_spans(activity: list[Any], end: float) -> list[tuple[float, float]]:
    """The activity detector's active spans (activating to deactivating, or to ``end``)."""
    spans, start = [], None
    for ev in activity:
        if ev.activating:
            start = ev.t
        elif start is not None:
            spans.append((start, ev.t))
            start = None
    if start is not None:
        spans.append((start, end))
    return spans


def held_note(active: list[tuple[float, float]], loud: list[tuple[float, float]], duration: float,
              timeout_ms: float) -> str:
    """A warning when the timeout, not the sound, makes the picture: one active span holding
    several separate loud passages over most of the clip (the demo at the default 2,000 ms)."""
    for a, b in active:
        inside = [s for s in loud if a <= s[0] < b]
        if duration > 0 and (b - a) >= 0.6 * duration and len(inside) >= 3:
            return (f"one active span holds {len(inside)} separate loud passages over {100 * (b - a) / duration:.0f} % "
                    f"of the clip: quiet gaps shorter than the {timeout_ms:g} ms timeout do not end activity "
                    f"(try --activity LEVEL,500)")
    return ""


def _draw_claps(ax: Any, claps: list[Any], patterns: list[Any]) -> None:
    """Each clap as a green line with a dot on top, each pattern as a purple bar above them."""
    if claps:
        ct = [c.t for c in claps]
        ax.vlines(ct, 0, 104, color="#2b8a3e", lw=0.8, alpha=0.5)
        ax.plot(ct, [104] * len(ct), ls="", marker="o", ms=6, color="#2b8a3e",
                label=f"clap ({len(claps)})")
    for p in patterns:
        ax.plot([p.times[0], p.times[-1]], [108, 108], color="#5f3dc4", lw=2.5,
                solid_capstyle="butt")
    if patterns:
        ax.plot([], [], color="#5f3dc4", lw=2.5, label=f"{patterns[0].count}-clap pattern "
                f"({len(patterns)})")


def level_label(name: str, values: ArrayLike) -> str:
    """``name`` with the level it had over the plot: ``"threshold 62"`` when it stayed the same,
    ``"threshold 40-62"`` when it changed; NaN (not yet known) is left out."""
    known = np.asarray(values, float)
    known = known[np.isfinite(known)]
    if len(known) == 0:
        return name
    lo, hi = (f"{round(float(v), 1):g}" for v in (known.min(), known.max()))
    return f"{name} {lo}" if lo == hi else f"{name} {lo}-{hi}"


def render(data: dict[str, Any], out: Path, *, title: str, width: float = 12.0) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sensekit.audio.level import DB_PER_LEVEL, FLOOR_DB

    t, lv = data["t"], data["level"]
    dur = max(data["duration"], float(t[-1]) if len(t) else 0.0, 1e-3)
    fig, ax = plt.subplots(figsize=(width, 4.8), dpi=110)
    fig.subplots_adjust(left=0.06, right=0.92, top=0.86, bottom=0.12)
    # active spans (light), and within them where the level itself is loud (dark): with a long
    # timeout the detector stays active across quiet gaps, and the plot should show both
    acts = data["activity"]
    timeout_ms = data["detector"].timeout_ms
    active = active_spans(acts, dur)
    loud = loud_spans(t, lv, data["thresholds"])
    for n, (a, b) in enumerate(active):
        ax.axvspan(a, b, color="#ffe8cc", alpha=0.8, lw=0,
                   label=f"active (gaps < {timeout_ms:g} ms held)" if n == 0 else None)
    for n, (a, b) in enumerate(loud):
        ax.axvspan(a, b, ymin=0, ymax=0.06, color="#e8590c", alpha=0.8, lw=0,
                   label="level above threshold" if n == 0 else None)
    ax.plot(t, lv, color="#1c7ed6", lw=0.9, label="activity level")
    th = data["thresholds"]
    ax.step(th[:, 0], th[:, 1], where="post", color="#e8590c", lw=1.4, ls="-",
            label=f"{level_label('threshold', th[:, 1])} (timeout {timeout_ms:g} ms)")
    gap = th[:, 1] - th[:, 2]
    if np.any(gap[np.isfinite(gap)] > 1e-9):
        ax.step(th[:, 0], th[:, 2], where="post", color="#e8590c", lw=1.0, ls=":",
                label=f"{level_label('off level', th[:, 2])} (hysteresis)")
    nf = data["noise_floor"]
    if nf.ready:
        ax.axhline(nf.level_in_use, color="#495057", lw=1.2, ls="--",
                   label=f"noise floor {nf.db:.0f} dBFS (learned over {nf.learn_ms / 1000:g} s)")
        ax.axvspan(0, min(dur, nf.learn_ms / 1000.0), ymin=0, ymax=0.025, color="#495057",
                   alpha=0.35, lw=0)
    on = [e.t for e in acts if e.activating]
    off = [e.t for e in acts if not e.activating]
    ax.plot(on, [2.5] * len(on), ls="", marker="^", ms=7, color="#d9480f",
            label=f"activating ({len(on)})")
    ax.plot(off, [2.5] * len(off), ls="", marker="v", ms=7, color="#868e96",
            label=f"deactivating ({len(off)})")
    _draw_claps(ax, data["claps"], data["patterns"])
    ax.set_xlim(0, dur)
    ax.set_ylim(0, 112)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("activity level (0..100)")
    ax.grid(True, color="#dee2e6", lw=0.6)
    ax.set_axisbelow(True)
    def level_to_db(v: ArrayLike) -> ArrayLike:
        return FLOOR_DB + np.asarray(v) * DB_PER_LEVEL

    def db_to_level(d: ArrayLike) -> ArrayLike:
        return (np.asarray(d) - FLOOR_DB) / DB_PER_LEVEL

    sec = ax.secondary_yaxis("right", functions=(level_to_db, db_to_level))
    sec.set_ylabel("rms dBFS")
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, 1.17), ncol=4, fontsize=8, frameon=False)
    note = f"{data['rate']} Hz, gain {data['gain']:g}"
    if data["skipped"]:
        note += f", {data['skipped']} block(s) with NaN/Inf skipped"
    held = held_note(active, loud, dur, timeout_ms)
    if held:
        ax.text(0.5, 0.975, held, transform=ax.transAxes, ha="center", va="top", fontsize=8, color="#862e9c",
                bbox={"facecolor": "white", "edgecolor": "#862e9c", "alpha": 0.9, "boxstyle": "round,pad=0.3"})
    fig.suptitle(f"{title}\n{note}", x=0.99, y=0.99, ha="right", va="top", fontsize=9)
    out.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():          # a title with characters the font lacks: boxes
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(out)
    plt.close(fig)
    return out


def activations_said(data: dict[str, Any]) -> str:
    """How many activations, with the threshold and timeout that counted them: ``"1 activation
    at threshold 10, timeout 2000 ms"``. The count depends on both (the demo: 1 at the table's 10
    and 2000 ms, 10 at activity_graph's 30 and 300 ms), so it is never said without them."""
    starts = sum(1 for e in data["activity"] if e.activating)
    return (f"{starts} activation{'' if starts == 1 else 's'} at "
            f"{level_label('threshold', np.reshape(data['thresholds'], (-1, 3))[:, 1])}, "
            f"timeout {data['detector'].timeout_ms:g} ms")


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    from sensekit.cli.audio_options import parse_activity

    options = parse_activity(args.activity) if args.activity else {}
    return chosen_values(args, options=options).values


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.spec import open_source

    check_range("--width", args.width, 2, 100)
    source = open_source(args.source)
    with source:
        if not getattr(source, "has_audio", True):
            raise SourceError(f"source {args.source!r} has no audio")
        from sensekit.cli.progress import clip_progress

        with clip_progress(source, "plot", quiet=args.quiet) as progress:
            data = collect(source, settings=_settings(args), clap=not args.no_clap, on_item=progress)
    title = args.title if args.title is not None else str(args.source)   # '' = no title
    render(data, args.out, title=title, width=args.width)
    claps = len(data["claps"])
    print(f"wrote {Path(args.out).absolute()} ({len(data['level'])} blocks, {claps} clap{'' if claps == 1 else 's'}, "
          f"{activations_said(data)})")
    return 0
