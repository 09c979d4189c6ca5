"""Real sounds from Debian packages as training-only negative sources (docs/claps_history.md,
thirty-third pass). Declared before any held-out figure of the pass.

After 32 passes every negative kind that still fires held out lives in one developer source (all real
typing is ibm's, all footsteps usc's, a phone's knuckle knocks km's; the speech plosives, drums, a
knock, cough, alarm, music and a dog likewise), so the leave-one-source-out fold that judges it never
heard it. Synthetic versions were tried
(tenth pass). Here a second *real* source of each kind comes from recordings that ship in Debian
packages. **Chosen by kind** (names, durations, formats; never by a score), one source name each
(``deb_*``):

============== =============================== ======================= ===============================
source         package (version, licence)      files                   kind (label)
============== =============================== ======================= ===============================
deb_buckle     bucklespring-data 1.4.0-2,      ``usr/share/buckle/     typing (``keyboard_typing``):
               GPL-2+                          wav/*.wav``, 171 of     an IBM Model M's key presses
                                               44.1 kHz, 56 s          (``XX-0``) and releases (``XX-1``)
deb_steps      openarena-data 0.8.5split-14,   ``pak0.pk3``'s          footsteps (``footsteps``):
               GPL-2+                          ``sound/player/         boot, step, flesh, clank, mech
                                               footsteps/``, 20 of     (splash and energy left out:
                                               22.05/44.1 kHz          water, sci-fi)
deb_ast_en     asterisk-core-sounds-en-wav     ``sounds/en_US_f_       speech (``speech``): one
               1.6.1-1, CC-BY-SA-3.0           Allison/**/*.wav``,     woman's English prompts, 8 kHz
                                               568, 1,529 s
deb_ast_fr     asterisk-core-sounds-fr-wav     ``sounds/fr_CA_f_June/  speech (``speech``): another
               1.6.1-1, CC-BY-SA-3.0           **/*.wav``, 561,        woman's (Canadian) French
                                               1,559 s                 prompts, 8 kHz
deb_moh        asterisk-moh-opsound-wav        ``moh/*.wav``, 5 tracks music (``music``): music on
               2.03-1.1, CC-BY-SA-3.0          (three artists), 8 kHz  hold, 8 kHz
deb_drums      hydrogen-data 1.2.0~beta1+dfsg  ``drumkits/GMRockKit/   drums (``drum_hit``): kicks,
               -1, GPL-2+                      *.wav`` less            snares, rimshots, side sticks,
                                               ``HandClap.wav``, 85    toms, hi-hats, cymbals, bells
                                               of 44.1 kHz             at five velocities each
============== =============================== ======================= ===============================

Not taken: ``hydrogen-data``'s ``TR808EmulationKit`` (an emulation, not a recording); knocks on a phone
(no package found with them; door sounds of the games are mechanical movers, not knocks).
``GMRockKit/HandClap.wav`` is **not** a training positive (whether it is a recording of hands or a
synthesised clap cannot be told from the package); it is only judged by the shipped detector
(``judge``), as one more sound nobody here recorded.

**How each becomes a source** (``debian_clips``): each package's files decoded (``soundfile``; the
pk3 is a zip), mono, at the lowest rate among the source's files (``clap_training.resample`` down,
never up), laid end to end with seeded pauses as the sound happens (a key's press, 60-150 ms, its
release, 80-350 ms to the next key; a step every 350-600 ms, each file three times; a drum hit every
250-800 ms, each cut at 1.5 s; a prompt every 200-600 ms; the music tracks' first 24 s each), over a
seeded white floor at -70 dBFS RMS (the files end in digital silence), gains 0 to -12 dB (one-shots),
packed into clips of at most ``CLIP_S`` (10 s) and at most ``MAX_S`` (120 s) of audio per source (the
files in sorted order, then a seeded order). Every burst of every clip is a negative (label 0).

**Training only.** The Debian clips get the shipped copies (``clap_training.AUGMENTATIONS`` through the
same ``_Clips.variant``, seeded ``seed_of(clip, variant)``: the applicable ones for a negative clip:
orig, 16k/8k/22k below its rate, reverb, clipped, eq, eq_reverb, quiet and the five noises), are never
used as backgrounds of the claps' mix copies (so the developer bursts are unchanged), and their bursts
are added to **every** fold's training set (``clap_training.train`` on the developer bursts joined with
them, ``leave_out=[s]`` of the developer source ``s``; the same trainer, depth, rounds, rate, L2, monotone
features, balanced weights by (source, class), ``ORIG_WEIGHT`` on orig, the air gate from the claps,
which are all developer claps). No Debian source is ever held out or scored in a fold's figures.
``T`` is nested as shipped (``clap_folds.nested_thresholds`` on the developer bursts' fold scores, the
other 13 sources); the close-call wait keeps each fold's margin, theta, ring trees and log-mel weights of
today's folds (the thirty-first pass's choice; re-nesting is the thirty-second pass's recipe, not run).
Control first: the 14 folds refit on the developer bursts alone equal today's fold trees exactly.

**Ship rule** (the twenty-sixth pass's, extended by the task): held out, streamed at offsets 0 and 517
through ``ClapDetector`` (route off, 512-sample blocks), against today's folds: fewer negative clips
fire, no clap source's per-clap F1 drops, sharwin's recipe F1 does not drop, white, pink and babble at
10 dB do not lose, p50 decision delay <= 42 ms (the benchmark cost is unchanged: only weights change).
Otherwise evaluation only.

Nothing here downloads at run time: ``fetch`` (``apt-get download`` and ``dpkg-deb -x`` into a cache
directory the user names) is called only by ``benchmarks/clap_debian_sources.py --fetch``.
"""
from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.evaluation.audio.clap_training import (
    AUGMENTATIONS,
    Bursts,
    _Clips,
    bursts_of_rows,
    judged_bursts,
    resample,
    seed_of,
)
from sensekit.evaluation.audio.evaluate import Clip

CLIP_S = 10.0          # a Debian clip's longest
MAX_S = 120.0          # audio per source at most
FLOOR_DB = -70.0       # white floor under every clip, dBFS RMS
GAIN_DB = (-12.0, 0.0)  # a one-shot's gain
PREFIX = "deb_"


class DebianSourceError(RuntimeError):
    """A package missing from the cache, a failed download or unpacking, or no usable file."""


@dataclass(frozen=True)
class DebSource:
    """One package's files as one training source."""

    name: str                 # the source name (``deb_*``)
    package: str
    label: str                # the kind, as the clips' labels
    globs: tuple[str, ...]    # files (relative to the unpacked package), or members of ``archive``
    style: str                # "keys", "steps", "hits", "prompts" or "music"
    archive: str = ""         # a zip (pk3) inside the package holding the files
    exclude: tuple[str, ...] = ()


SOURCES = (
    DebSource("deb_buckle", "bucklespring-data", "keyboard_typing", ("usr/share/buckle/wav/*.wav",), "keys"),
    DebSource("deb_steps", "openarena-data", "footsteps",
              tuple(f"sound/player/footsteps/{k}*.wav" for k in ("boot", "step", "flesh", "clank", "mech")),
              "steps", archive="usr/share/games/openarena/baseoa/pak0.pk3"),
    DebSource("deb_ast_en", "asterisk-core-sounds-en-wav", "speech",
              ("usr/share/asterisk/sounds/en_US_f_Allison/**/*.wav",), "prompts"),
    DebSource("deb_ast_fr", "asterisk-core-sounds-fr-wav", "speech",
              ("usr/share/asterisk/sounds/fr_CA_f_June/**/*.wav",), "prompts"),
    DebSource("deb_moh", "asterisk-moh-opsound-wav", "music", ("usr/share/asterisk/moh/*.wav",), "music"),
    DebSource("deb_drums", "hydrogen-data", "drum_hit", ("usr/share/hydrogen/data/drumkits/GMRockKit/*.wav",),
              "hits", exclude=("HandClap.wav",)),
)
#: pauses (s) before each sound, by style; a key's release follows its press after KEY_HOLD_S
GAPS_S = {"keys": (0.08, 0.35), "steps": (0.35, 0.6), "hits": (0.25, 0.8), "prompts": (0.2, 0.6)}
KEY_HOLD_S = (0.06, 0.15)
STEP_REPEATS = 3
HIT_MAX_S = 1.5
MUSIC_S = 24.0


def fetch(cache: Path, package: str, *, run: Callable[..., Any] = subprocess.run) -> Path:
    """The unpacked package ``cache/x/<package>`` (``apt-get download`` and ``dpkg-deb -x`` when not
    there yet). Dev-time only."""
    root = Path(cache) / "x" / package
    if root.is_dir():
        return root
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise DebianSourceError(f"{tool} not found: cannot fetch Debian package {package!r}")
    Path(cache).mkdir(parents=True, exist_ok=True)
    got = run(["apt-get", "download", package], cwd=cache, capture_output=True, text=True)
    debs = sorted(Path(cache).glob(f"{package}_*.deb"))
    if got.returncode != 0 or not debs:
        raise DebianSourceError(f"apt-get download {package} failed: {(got.stderr or '').strip()[-300:]}")
    tmp = root.with_name(root.name + ".part")
    tmp.mkdir(parents=True, exist_ok=True)
    got = run(["dpkg-deb", "-x", str(debs[-1]), str(tmp)], capture_output=True, text=True)
    if got.returncode != 0:
        raise DebianSourceError(f"dpkg-deb -x {debs[-1].name} failed: {(got.stderr or '').strip()[-300:]}")
    tmp.rename(root)
    return root


def unpacked(cache: Path, package: str) -> Path:
    """``cache/x/<package>``, or a ``DebianSourceError`` naming the package and how to fetch it."""
    root = Path(cache) / "x" / package
    if not root.is_dir():
        raise DebianSourceError(f"Debian package {package!r} is not in the cache {cache}: run "
                                f"benchmarks/clap_debian_sources.py --cache {cache} --fetch")
    return root


def decode(data: bytes | Path) -> tuple[np.ndarray, int]:
    """Mono float32 samples and rate of a wav/flac/ogg file or its bytes."""
    import soundfile as sf

    try:
        x, rate = sf.read(io.BytesIO(data) if isinstance(data, bytes) else str(data), dtype="float32",
                          always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as e:
        raise DebianSourceError(f"cannot decode {'bytes' if isinstance(data, bytes) else data}: {e}") from e
    if len(x) == 0:
        raise DebianSourceError(f"empty audio: {'bytes' if isinstance(data, bytes) else data}")
    return np.ascontiguousarray(x.mean(axis=1, dtype=np.float32)), int(rate)


def read_files(root: Path, src: DebSource) -> list[tuple[str, np.ndarray, int]]:
    """``src``'s files under ``root`` (sorted by name): (name, samples, rate)."""
    out: list[tuple[str, np.ndarray, int]] = []
    if src.archive:
        import fnmatch

        with zipfile.ZipFile(root / src.archive) as z:
            names = sorted(n for n in z.namelist() if any(fnmatch.fnmatch(n, g) for g in src.globs))
            for n in names:
                if Path(n).name not in src.exclude:
                    out.append((n, *decode(z.read(n))))
    else:
        for p in sorted({p for g in src.globs for p in root.glob(g)}):
            if p.name not in src.exclude:
                out.append((str(p.relative_to(root)), *decode(p)))
    if not out:
        raise DebianSourceError(f"no files of {src.name} ({', '.join(src.globs)}) under {root}")
    return out


def _events(files: list[tuple[str, np.ndarray, int]], style: str, rate: int,
            rng: np.random.Generator) -> list[tuple[float, np.ndarray]]:
    """(pause before, sound) in playing order, each sound at ``rate``."""
    at = {n: (x if r == rate else resample(x, r, rate)) for n, x, r in files}
    gain = (lambda: 10.0 ** (rng.uniform(*GAIN_DB) / 20.0)) if style != "prompts" else (lambda: 1.0)
    ev: list[tuple[float, np.ndarray]] = []
    if style == "keys":
        keys: dict[str, list[str]] = {}
        for n in at:
            keys.setdefault(Path(n).stem.rsplit("-", 1)[0], []).append(n)
        for k in rng.permutation(sorted(keys)):
            g = gain()
            for i, n in enumerate(sorted(keys[str(k)])):
                ev.append((rng.uniform(*(GAPS_S["keys"] if i == 0 else KEY_HOLD_S)), at[n] * g))
        return ev
    names = sorted(at) * (STEP_REPEATS if style == "steps" else 1)
    for i in rng.permutation(len(names)):
        x = at[names[int(i)]]
        ev.append((rng.uniform(*GAPS_S[style]), (x[:round(HIT_MAX_S * rate)] if style == "hits" else x) * gain()))
    return ev


def sequences(files: list[tuple[str, np.ndarray, int]], style: str, name: str) -> tuple[list[np.ndarray], int]:
    """The source's clips (at most ``CLIP_S`` each, ``MAX_S`` in all) and their rate."""
    rate = min(r for _, _, r in files)
    rng = np.random.default_rng(seed_of(name, "sequence"))
    if style == "music":
        n, parts = round(CLIP_S * rate), list[np.ndarray]()
        for _, x, r in files:
            y = (x if r == rate else resample(x, r, rate))[:round(MUSIC_S * rate)]
            parts += [y[i:i + n] for i in range(0, len(y), n)]
        clips = [p for p in parts if len(p) >= rate]
    else:
        cur: list[np.ndarray] = []
        clips, size = [], 0
        for gap, x in _events(files, style, rate, rng):
            piece = [np.zeros(round(gap * rate), np.float32), np.asarray(x, np.float32)]
            k = len(piece[0]) + len(piece[1])
            if cur and size + k > CLIP_S * rate:
                clips.append(np.concatenate(cur + [np.zeros(round(0.3 * rate), np.float32)]))
                cur, size = [], 0
            cur += piece
            size += k
        if cur:
            clips.append(np.concatenate(cur + [np.zeros(round(0.3 * rate), np.float32)]))
    out, total = [], 0
    for c in clips:
        if total + len(c) > MAX_S * rate:
            break
        total += len(c)
        floor = rng.standard_normal(len(c)) * 10.0 ** (FLOOR_DB / 20.0)
        y = c.astype(np.float64) + floor
        peak = float(np.abs(y).max())
        out.append(np.asarray(y * (0.95 / peak) if peak > 0.95 else y, np.float32))
    if not out:
        raise DebianSourceError(f"{name}: no clip of its files (all shorter than 1 s?)")
    return out, rate


def debian_clips(cache: Path, sources: Iterable[DebSource] = SOURCES) -> list[tuple[Clip, np.ndarray, int]]:
    """Every Debian source's clips: (``Clip`` named ``debian/<source>_<i>.wav``, samples, rate)."""
    out = []
    for src in sources:
        clips, rate = sequences(read_files(unpacked(cache, src.package), src), src.style, src.name)
        out += [(Clip(f"debian/{src.name}_{i}.wav", src.label, [], src.name), x, rate) for i, x in enumerate(clips)]
    return out


def collect_debian(data: Path, cache: Path, *, augment: Iterable[str] = AUGMENTATIONS,
                   sources: Iterable[DebSource] = SOURCES,
                   progress: Callable[[str], None] | None = None) -> Bursts:
    """The Debian clips' bursts and their shipped copies (``_Clips.variant``), every one a negative."""
    pool = _Clips(Path(data))
    rows: list[tuple[Any, ...]] = []
    counts: dict[str, int] = {}
    labels: dict[str, str] = {}
    for c, x, rate in debian_clips(cache, sources):
        pool.audio[c.file] = (x, rate)
        counts[c.file], labels[c.file] = 0, c.label
        for variant in augment:
            copy = pool.variant(variant, c, [], np.random.default_rng(seed_of(c.file, variant)))
            if copy is None:
                continue
            y, r, _, bg = copy
            rows.extend((f.vector(), 0, c.source, bg, variant, c.file) for f in judged_bursts(y, r))
        if progress is not None:
            progress(c.file)
    if not rows:
        raise DebianSourceError("the Debian clips gave no burst")

    return bursts_of_rows(rows, counts, labels)
