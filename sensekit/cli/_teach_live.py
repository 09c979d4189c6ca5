"""Teaching from a live source: ``--from mic`` (or any source spec) for ``teach sound``/``words``.

    sensekit teach sound --profile venue.toml --from mic [--examples 3] [--timeout 8] NAME [NAME...]

With ``--from SRC`` the positional arguments are bare names; for each name the command prompts
"make NAME now (k of n)" and keeps the next voiced segment the source gives
(``sensekit.audio.live_examples``). SRC is ``mic`` or anything ``sensekit events`` takes: a
recording or audio file replays as if live (its own clock drives the timeouts), which is how
the tests drive it and makes it deterministic.
"""
from __future__ import annotations

import argparse
from typing import Any

from sensekit.audio.live_examples import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT_S, MAX_EXAMPLES, MAX_TIMEOUT_S
from sensekit.audio.sounds import check_taught_name
from sensekit.cli.numbers import float_in, int_in
from sensekit.errors import ConfigError
from sensekit.safe_read import clip


def add_arguments(p: Any, what: str = "sound") -> None:
    """``--from``, ``--examples``, ``--timeout`` on a teach subcommand (``what``: ``sound`` or
    ``word``, as its positional arguments and its prompts name it)."""
    ask = "say each word" if what == "word" else f"make each {what}"
    p.add_argument("--from", dest="live", metavar="SRC",
                   help="catch the examples from a live source (mic, or a recording replayed as if live); "
                        f"then give bare {'WORD' if what == 'word' else 'NAME'}s and {ask} when prompted")
    # bounded while the arguments are parsed: ``--timeout inf`` (or ``1e400``) waited for ever on a
    # silent microphone, and ``--examples 1000000`` opened the source before it was refused
    p.add_argument("--examples", type=int_in(2, MAX_EXAMPLES), default=None, metavar="N",
                   help=f"with --from: examples per {what} (default {DEFAULT_EXAMPLES}; 3 to 5 work best; "
                        f"at most {MAX_EXAMPLES})")
    p.add_argument("--timeout", type=float_in(0, MAX_TIMEOUT_S), default=None, metavar="S",
                   help=f"with --from: seconds to wait for each example (default {DEFAULT_TIMEOUT_S:g}; "
                        f"at most {MAX_TIMEOUT_S:g})")


def settle_arguments(args: argparse.Namespace) -> None:
    """``--examples`` and ``--timeout`` only go with ``--from`` (with files every example given
    is used, and nothing is waited for): a one-line error, else their defaults (3, 8 s)."""
    given = [opt for opt, value in (("--examples", args.examples), ("--timeout", args.timeout))
             if value is not None]
    if given and not args.live:
        raise ConfigError(f"{given[0]} goes with --from (examples given as files are all used)")
    if args.examples is None:
        args.examples = DEFAULT_EXAMPLES
    if args.timeout is None:
        args.timeout = DEFAULT_TIMEOUT_S


def check_names(texts: list[str], what: str = "sound") -> list[str]:
    """Bare names for ``--from`` (one-line errors for ``NAME=FILE`` or a bad name)."""
    for text in texts:
        if "=" in text:
            raise ConfigError(f"with --from give bare {what} names, not '{clip(text, 40)}' (files go without --from)")
        check_taught_name(text, what)
    once_each(texts, what)
    return list(texts)


def once_each(names: list[str], what: str, hint: str = "") -> None:
    """A one-line ``ConfigError`` naming every name given more than once (``hint``: how to give
    it once), for names given bare or as ``NAME=FILE``."""
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"{what} given twice: {', '.join(twice)}{hint}")


def catch(args: argparse.Namespace, names: list[str], *, verb: str = "make",
          counts: dict[str, int] | None = None, transients: bool = False) -> dict[str, list[Any]]:
    """The prompted examples of each name from ``args.live`` (``counts`` overrides ``--examples``;
    ``transients``: onsets open segments too, as for taught sounds)."""
    from sensekit.audio.live_examples import catch_examples
    from sensekit.capture.spec import open_source

    if args.examples < 2:
        raise ConfigError(f"--examples must be 2 or more (3 to 5 work best), got {args.examples}")
    source = open_source(args.live)
    with source:
        if not source.has_audio:
            raise ConfigError(f"{args.live!r} gives no audio to teach from")
        return catch_examples(source, names, count=args.examples, timeout_s=args.timeout,
                              say=lambda s: print(s, flush=True), verb=verb, counts=counts,
                              transients=transients)
