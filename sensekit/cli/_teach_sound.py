"""``sensekit teach sound``: teach the voice stage sounds of your own, kept in a venue profile.

    sensekit teach sound --profile venue.toml NAME=FILE[,FILE...] [NAME=...]
    sensekit teach sound --profile venue.toml --from mic [--examples 3] NAME [NAME...]

Each FILE is an audio file (WAV/FLAC/OGG), a recording folder (its ``audio.wav``), or either
with a time range ``FILE@START-END`` in seconds (``take.skrec@3.2-4.0``): one example of the
sound, of which the longest part that stands out is kept (a voiced part, or a short sound such
as a snap or a knock whose onset rises 20 dB over the background: ``vad``'s ``transients``, as
the voice stage hears taught sounds). Give 3 to 5 examples of each sound (at least
2). The templates and each sound's spread go to ``[sounds.NAME]`` of the profile (the rest of
the file is kept; a sound taught again is replaced); then
``sensekit events SRC --profile venue.toml --sounds`` emits ``sound`` events. Needs the voice
extra. Errors (a missing file, a bad range, an example with no sound in it) are one line naming
the example (exit status 2). With ``--from SRC`` (``mic``, or a recording replayed as if live)
the examples are caught live, prompted one by one (``sensekit.cli._teach_live``).
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.audio.sounds import is_taught_name
from sensekit.cli import _teach_live
from sensekit.cli.paths import OutputPath
from sensekit.errors import ConfigError, SourceError
from sensekit.safe_read import clip

MAX_EXAMPLE_S = 600.0        # the longest example or --other file read whole (10 minutes of talk)
_SECONDS = r"(?:\d+(?:\.\d*)?|\.\d+)"
_RANGE = re.compile(rf"^(?P<path>.+?)@(?P<a>{_SECONDS})-(?P<b>{_SECONDS})$")


def add_parser(sub: Any) -> None:
    """Add ``sound`` to the ``teach`` command's subcommands (``sensekit.cli.teach``)."""
    s = sub.add_parser("sound", help="teach sounds from examples: NAME=FILE[,FILE...]",
                       description="Teach sounds from 3-5 examples each; they are kept in the profile.")
    s.add_argument("--profile", required=True, metavar="FILE", type=OutputPath(".toml", replaced=True),
                   help="the venue profile to keep them in (.toml; made if missing, else edited in place)")
    s.add_argument("sounds", nargs="+", metavar="NAME=FILE[,FILE...]",
                   help="a sound's name and its examples (FILE or FILE@START-END in seconds); "
                        "with --from only the NAME")
    _teach_live.add_arguments(s)
    s.set_defaults(func=main)


def parse_teaching(text: str) -> tuple[str, list[str]]:
    """``"clap=a.wav,b.wav@1-2"`` -> ``("clap", ["a.wav", "b.wav@1-2"])``."""
    return parse_named_files(text, "sound", "NAME", at_least=2)


def parse_named_files(text: str, what: str, label: str, *, at_least: int) -> tuple[str, list[str]]:
    """``LABEL=FILE[,FILE...]`` of a sound or word (``sounds.is_taught_name``), at least
    ``at_least`` files; a one-line error naming the argument otherwise."""
    name, eq, files = text.partition("=")
    name = name.strip()
    if not eq and is_taught_name(name):       # a bare name: the files are missing, or --from was meant
        raise ConfigError(f"{what} {name!r} has no examples: give {label}=FILE[,FILE...] (recordings of it; "
                          f"3 to 5 work best), or catch them live with --from mic")
    if not eq or not is_taught_name(name):
        raise ConfigError(f"a {what} is {label}=FILE[,FILE...] with {label} one word of up to 64 letters, "
                          f"digits, _ and -, got '{clip(text, 60)}'")
    examples = [f.strip() for f in files.split(",") if f.strip()]
    for spec in examples:                     # a mistyped path is named before the count
        example_path(spec)
    if len(examples) < at_least:
        raise ConfigError(f"{what} {name!r} needs at least {at_least} examples (3 to 5 work best), got {len(examples)}")
    return name, examples


def _quoted(spec: str) -> str:
    """An example as its message quotes it: whole up to 160 characters, else its end (the file)."""
    return repr(spec if len(spec) <= 160 else "..." + spec[-120:])


def example_path(spec: str) -> Path:
    """The audio file of an example (``FILE``, ``FILE@START-END``, or a recording folder's
    ``audio.wav``); a one-line error when there is none."""
    m = _RANGE.match(spec)
    path = Path(m.group("path") if m else spec)
    head, at, after = spec.rpartition("@")
    if not m and at and not path.exists() and Path(head).exists():
        raise ConfigError(f"example {_quoted(spec)}: the range must be START-END in seconds "
                          f"(e.g. {clip(Path(head).name, 60)}@1.5-2.5), got '{clip(after, 60)}'")
    if path.is_dir():
        if not (path / "meta.json").is_file():
            raise ConfigError(f"example {_quoted(spec)} is a folder, not an audio file or a recording")
        path = path / "audio.wav"
        if not path.is_file():
            raise ConfigError(f"example {_quoted(spec)}: the recording has no audio ('audio.wav')")
    elif not path.is_file():
        raise ConfigError(f"example {_quoted(spec)}: no such audio file")
    return path


def read_example(spec: str) -> tuple[np.ndarray, int]:
    """The samples of one example: a file or recording, optionally cut to ``@START-END``. Only
    the range is read; a file longer than ``MAX_EXAMPLE_S`` needs one (a whole file was read into
    memory: a 3 GB WAV given as an example filled it until the machine killed the command)."""
    import soundfile as sf

    from sensekit.capture.media import open_audio_file

    m = _RANGE.match(spec)
    path = example_path(spec)
    try:        # a WAV whose writer stopped before it wrote the length reads as `sensekit events` reads it
        f, rate, _ = open_audio_file(path)
    except SourceError as exc:
        raise ConfigError(f"example {_quoted(spec)}: {exc}") from None
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise ConfigError(f"example {_quoted(spec)}: cannot read it as audio ({exc})") from None
    try:
        frames = int(f.frames)
        start, stop = 0, frames
        if m:
            a, b = float(m.group("a")), float(m.group("b"))
            if not 0 <= a < b or a * rate >= frames:
                raise ConfigError(f"example {_quoted(spec)}: the range must be START-END with 0 <= START < END "
                                  f"inside the {frames / rate:.2f} s file")
            start, stop = int(a * rate), min(frames, int(b * rate))
        if stop - start > MAX_EXAMPLE_S * rate:
            raise ConfigError(f"example {_quoted(spec)} is {(stop - start) / rate:,.0f} s long; an example is "
                              f"at most {MAX_EXAMPLE_S:g} s (give a range: FILE@START-END)")
        try:
            f.seek(start)
            x = f.read(stop - start, dtype="float32", always_2d=False)
        except (RuntimeError, sf.LibsndfileError) as exc:
            raise ConfigError(f"example {_quoted(spec)}: cannot read it as audio ({exc})") from None
    finally:
        f.close()
    return x, rate


def main(args: argparse.Namespace) -> int:
    from sensekit.audio.sounds import SOUNDS_TABLE, SoundBook, example_segment
    from sensekit.audio.words import require_voice
    from sensekit.profile.save import save_table

    _teach_live.settle_arguments(args)
    require_voice()
    if args.live:
        caught = _teach_live.catch(args, _teach_live.check_names(args.sounds), transients=True)
    else:
        teachings = [parse_teaching(t) for t in args.sounds]     # every argument checked before work
        _teach_live.once_each([n for n, _ in teachings], "sound", " (list all its examples in one NAME=...)")
        caught = {name: [example_segment(*read_example(spec), what=f"example {spec!r}", transients=True)
                         for spec in specs]
                  for name, specs in teachings}
    book = SoundBook()
    for name, segments in caught.items():
        sound = book.teach(name, segments)
        print(f"{name}: {len(segments)} examples, spread {sound.spread:.2f}")
    save_table(args.profile, SOUNDS_TABLE, book.to_tables())
    print(f"taught {', '.join(book.sounds)} -> {Path(args.profile).absolute()}  (sensekit events SRC --profile "
          f"{args.profile} --sounds)")
    return 0
