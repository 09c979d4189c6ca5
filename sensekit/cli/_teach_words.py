"""``sensekit teach words``: command words learnt from recorded takes, kept in a venue profile.

    sensekit teach words --profile venue.toml --other FILE[,FILE...] WORD=FILE[,FILE...] [WORD=...]
    sensekit teach words --profile venue.toml --from mic [--examples 3] [--other FILE,...] WORD [WORD...]

Each FILE is an audio file, a recording folder (its ``audio.wav``), or either with a time range
``FILE@START-END`` in seconds, as for ``teach sound``. A WORD's FILEs are takes of that word
(the longest voiced part of each is kept; 3 or more per word, from several people for a
speaker-independent model). ``--other`` FILEs hold other speech (other words, chatter): every
voiced part of them teaches the classifier what to refuse. The classifier
(``sensekit.audio.taught_words``: speech embeddings + logistic regression) replaces any
``[taught_words]`` of the profile, the rest of the file is kept; then
``sensekit events SRC --profile venue.toml --words WORD,...`` hears those words with it.
Teaching is deterministic: the same takes give the same profile. Needs the voice extra.
Errors (a bad name, a missing file, too few takes, a take with no speech) are one line naming
the problem (exit status 2). With ``--from SRC`` (``mic``, or a recording replayed as if live)
the takes are caught live, prompted one by one (``sensekit.cli._teach_live``); without
``--other`` the prompts then ask for other words, ``max(3, --examples)`` of them.
``--refuse-parts``: the first and last 40 % of every take are taught as other speech too
(``teach_words(parts_as_other=True)``; measured by ``benchmarks/voice_few_takes.py``);
``--no-refuse-parts``: never; by default, when the takes sound like one voice
(``sensekit.audio.take_voices``; ``benchmarks/voice_one_voice.py``), and the command says which.
``--refuse-unlike``: the takes are kept in the profile and a word heard unlike all of its takes is
refused, so words never said while teaching do not fire (``sensekit.audio.open_set``;
``benchmarks/voice_open_set.py``); ``--no-refuse-unlike``: never; by default, as for the parts.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


from sensekit.cli import _teach_live
from sensekit.cli._teach_sound import parse_named_files, read_example
from sensekit.cli.paths import OutputPath
from sensekit.errors import ConfigError
from sensekit.paths import doc

MIN_TAKES = 3
OTHER = "another word (not a command)"     # the prompt for other speech with --from


def add_parser(sub: Any) -> None:
    """Add ``words`` to the ``teach`` command's subcommands (``sensekit.cli.teach``)."""
    s = sub.add_parser("words", help="teach command words from recorded takes: WORD=FILE[,FILE...]",
                       description="Learn command words from takes (several people's for any speaker) "
                                   "and other speech; kept in the profile for --words.")
    s.add_argument("--profile", required=True, metavar="FILE", type=OutputPath(".toml", replaced=True),
                   help="the venue profile to keep them in (.toml; made if missing, else edited in place)")
    s.add_argument("--other", metavar="FILE[,FILE...]",
                   help="other speech (other words, talk): every voiced part is a take of what to refuse "
                        "(needed without --from; with --from, other words are asked for when it is missing)")
    s.add_argument("words", nargs="+", metavar="WORD=FILE[,FILE...]",
                   help=f"a word and its takes (FILE or FILE@START-END in seconds; {MIN_TAKES} or more); "
                        "with --from only the WORD")
    s.add_argument("--refuse-parts", action=argparse.BooleanOptionalAction, default=None,
                   help="also teach the first and last 40%% of every take as other speech, for words one "
                        "person teaches for themselves: fewer words heard in their other words and in pieces "
                        "of words, a few more missed. Default: when the takes sound like one voice; "
                        f"--no-refuse-parts never ({doc('voice.md')})")
    s.add_argument("--refuse-unlike", action=argparse.BooleanOptionalAction, default=None,
                   help="keep the takes in the profile and refuse a word heard unlike all of its takes, for "
                        "words one person teaches for themselves: words never said while teaching fire far "
                        "less, a few more commands are missed. Default: when the takes sound like one voice; "
                        f"--no-refuse-unlike never ({doc('voice.md')})")
    _teach_live.add_arguments(s, "word")
    s.set_defaults(func=main)


def parse_word(text: str) -> tuple[str, list[str]]:
    """``"left=a.wav,b.wav,c.wav"`` -> ``("left", [...])``; a one-line error for a bad one."""
    name, takes = parse_named_files(text, "word", "WORD", at_least=1)
    if len(takes) < MIN_TAKES:
        raise ConfigError(f"word {name!r} needs at least {MIN_TAKES} takes (from several people for any "
                          f"speaker), got {len(takes)}")
    return name.lower(), takes


def other_segments(spec: str) -> list[Any]:
    """Every voiced segment of one ``--other`` example."""
    from sensekit.audio.vad import voiced_segments

    found = voiced_segments(*read_example(spec), what=f"example {spec!r}")
    if not found:
        raise ConfigError(f"example {spec!r}: no speech found (it must stand 12 dB over the background)")
    return found


def why_parts(taught: Any, asked: bool | None) -> str:
    """Why the parts of the takes were (not) taught as other speech, when the takes decided it."""
    from sensekit.audio.take_voices import MAX_ONE_VOICE_TAKES, ONE_VOICE_BELOW

    if asked is not None:
        return ""
    differ = f"how much they differ, {taught.voice_spread:.2f}, is"      # the measure's name is jargon
    if taught.parts_as_other:
        return (f" (the takes sound like one voice: {differ} under {ONE_VOICE_BELOW:g}; so the start and end "
                "of each take are taught as not the word, and a piece of it is not heard as the word; "
                "--no-refuse-parts: don't)")
    spread = taught.voice_spread
    most = max(taught.classifier.takes[w] for w in taught.words)
    why = (f"a word has {most} takes, more than one person is asked for ({MAX_ONE_VOICE_TAKES})"
           if most > MAX_ONE_VOICE_TAKES and spread < ONE_VOICE_BELOW else
           f"the takes sound like several voices: {differ} not under {ONE_VOICE_BELOW:g}")
    return f" ({why}; --refuse-parts also teaches the start and end of each take as not the word)"


def main(args: argparse.Namespace) -> int:
    from sensekit.audio.sounds import example_segment
    from sensekit.audio.taught_words import TAUGHT_WORDS_TABLE, teach_words
    from sensekit.audio.words import require_voice
    from sensekit.profile.save import save_table

    _teach_live.settle_arguments(args)
    require_voice()
    if args.live:
        names = [n.lower() for n in _teach_live.check_names(args.words, "word")]
        if args.examples < MIN_TAKES:
            raise ConfigError(f"--examples must be {MIN_TAKES} or more for words, got {args.examples}")
    else:
        parsed = [parse_word(t) for t in args.words]           # every argument checked before work
        names = [n for n, _ in parsed]
    _teach_live.once_each(names, "word", " (list all its takes in one WORD=...)")
    if args.other is None and not args.live:
        raise ConfigError("--other FILE[,FILE...] is needed: other speech, for what to refuse")
    other_specs = [f.strip() for f in (args.other or "").split(",") if f.strip()]
    if args.other is not None and not other_specs:
        raise ConfigError("--other needs at least one file of other speech")
    if args.live:
        asked = names if other_specs else [*names, OTHER]
        takes = _teach_live.catch(args, asked, verb="say", counts={OTHER: max(MIN_TAKES, args.examples)})
        others = takes.pop(OTHER, [])
    else:
        takes = {name: [example_segment(*read_example(spec), what=f"take {spec!r}") for spec in specs]
                 for name, specs in parsed}
        others = []
    others += [s for spec in other_specs for s in other_segments(spec)]
    if len(others) < MIN_TAKES:
        raise ConfigError(f"--other holds {len(others)} voiced parts; give at least {MIN_TAKES} "
                          "(other words or talk)")
    taught = teach_words(takes, others, parts_as_other=args.refuse_parts, near_takes=args.refuse_unlike)
    for name in names:
        print(f"{name}: {len(takes[name])} takes")
    parts = ", and the first and last 40 % of every take" if taught.parts_as_other else ""
    print(f"other speech: {len(others)} parts{parts}{why_parts(taught, args.refuse_parts)}")
    if taught.near is not None:
        print("words unlike all their takes are refused (a word never said while teaching does not fire"
              + ("; --no-refuse-unlike: don't)" if args.refuse_unlike is None else ")"))
    save_table(args.profile, TAUGHT_WORDS_TABLE, taught.to_tables(), replace=True)
    print(f"taught {', '.join(names)} -> {Path(args.profile).absolute()}  (sensekit events SRC --profile "
          f"{args.profile} --words {','.join(names)})")
    return 0
