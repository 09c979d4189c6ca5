"""The ``sensekit`` command.

Each subcommand lives in its own module in this package and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
Modules are discovered automatically, so adding a command means adding a file. ``main`` imports
only the module of the command being run; ``sensekit --help`` lists the others by the ``help=``
of their ``add_parser`` call, read from the source (keep it a literal string).

Errors that sensekit raises on purpose (``SensekitError``), bad arguments
(argparse's message, without the usage block) and operating-system errors while
writing (disk full...) print as one plain line and exit with status 2, or 75 (``EXIT_TEMPFAIL``)
for a device named by the source that is not there yet (``sensekit.errors.exit_status``); Ctrl-C
exits with 130; ``sensekit`` with no command is such a mistake (``--help`` exits 0). The
closing lines of a command that writes files (``saved PATH``, ``wrote PATH``, ``screenshot:
PATH``) go to stdout and name each file by its full path; errors, warnings and progress go
to stderr. No traceback, unless ``-vv``. Output paths are checked while the
arguments are parsed (``sensekit.cli.paths.OutputPath``), before any work.
Repeated log warnings are rate-limited (``sensekit.ratelimit``). A refusal that names a setting
says where the user gave it (``FILE:LINE:`` of the profile, ``--set KEY=VALUE:``...:
``sensekit.cli.setting_origin``).
"""
from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from sensekit import __version__
from sensekit.cli.paths import check_outputs_apart
from sensekit.cli.signals import terminal_gone
from sensekit.errors import SensekitError, exit_status
from sensekit.settings.presets import the_book
from sensekit.ratelimit import flush_rate_limit, install_rate_limit

log = logging.getLogger("sensekit")




if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:                        # not subscriptable at run time (pdoc evaluates the annotations)
    Subparsers = argparse._SubParsersAction


def free_text(text: str) -> str:
    """``argparse`` type for free text that may be empty (``--notes``, ``--title``)."""
    return text


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (the usage is one ``--help`` away), and
    which rejects an empty value (``--track-color ''``) unless the option is ``free_text``:
    an empty value means nothing, and silently ignoring it hides the mistake."""

    def _get_value(self, action: argparse.Action, arg_string: str) -> object:
        if isinstance(arg_string, str) and action.nargs not in (argparse.PARSER, argparse.REMAINDER):
            if not arg_string.strip() and action.type is not free_text:
                raise argparse.ArgumentError(action, f"an empty value {arg_string!r} means nothing; "
                                                     "leave the option out to get its default")
            if "\x00" in arg_string:      # only possible from Python, never from a shell
                raise argparse.ArgumentError(action, f"{arg_string!r} contains a NUL character")
        return super()._get_value(action, arg_string)

    def error(self, message: str) -> NoReturn:
        message = " ".join(message.split()) + _command_hint(message)
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


class WrapFormatter(argparse.HelpFormatter):
    """Wraps the description and epilog between words only: a path (``/work/my-site/docs/book.md``)
    is never cut at a hyphen, so it can be copied from the terminal."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False, break_long_words=False)


#: how alike a mistyped option must be to a command's own to be offered (two at most): higher
#: than ``suggest.CUTOFF`` because every option shares the leading ``--``, which lifts the ratio
_OPTION_CUTOFF = 0.75

#: words a newcomer types for a command that is not one, and where that job is
_NOT_COMMANDS = {"replay": "a recording replays with `sensekit events REC` or `sensekit run APP --source REC`",
                 "play": "an app plays with `sensekit run APP`; a recording with `sensekit events REC`"}


def _command_hint(message: str) -> str:
    """For an unknown command (or other choice): the closest name, or where that job is done."""
    import re

    from sensekit.suggest import close_matches, did_you_mean

    m = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)", " ".join(message.split()))
    if not m:
        return ""
    word, choices = m.group(2), re.findall(r"'([^']*)'", m.group(3))
    if m.group(1) == "COMMAND" and word.lower() in _NOT_COMMANDS:
        return f"; {_NOT_COMMANDS[word.lower()]}"
    hint = did_you_mean(close_matches(word, choices))
    return f"; {hint}" if hint else ""


def command_names() -> list[str]:
    """The modules of the subcommands (``osc_listen`` is the command ``osc-listen``), by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def command_summary(module: str) -> tuple[str, str] | None:
    """The command's name and the ``help=`` of its ``add_parser`` call, read from the module's
    source without importing it (importing every command would bring in every stage, pygame and
    the panel's web server); None for a module that adds no command."""
    import ast

    tree = ast.parse((Path(__path__[0]) / f"{module}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser"
                and node.args and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in (module, module.replace("_", "-"))):
            helps = [kw.value.value for kw in node.keywords if kw.arg == "help"
                     and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)]
            return str(node.args[0].value), helps[0] if helps else ""
    return None


def _command_in(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not a global option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(only: str | None = None, *, lazy: bool = False) -> argparse.ArgumentParser:
    """The whole parser; with ``lazy``, only the command ``only`` is imported and registered, and
    the others are left out when it is one (the command line names it), else listed by name and
    summary (enough for ``--help`` and for an unknown command's error), so start-up pays for one
    command's imports, or for none."""
    parser = _Parser(
        prog="sensekit",
        description="Control programs with a camera and a microphone.",
        epilog=the_book() + ".",
        formatter_class=WrapFormatter,
    )
    parser.add_argument("--version", action="version", version=f"sensekit {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = command_names()
    target = (only or "").replace("-", "_")
    if lazy and target in names and target.replace("_", "-") == only:
        module = importlib.import_module(f"{__name__}.{target}")
        if hasattr(module, "register"):       # the command line names this command: the others'
            module.register(sub)              # summaries would never be shown (nor read: ~0.1 s)
            return parser
    for name in names:
        if lazy and name.replace("_", "-") != only:
            summary = command_summary(name)
            if summary:
                sub.add_parser(summary[0], help=summary[1], add_help=False)
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


#: options of ``sensekit`` itself, given before the command
_GLOBAL_OPTIONS = frozenset({"-q", "--quiet", "-v", "--verbose", "--version"})


def _unrecognized(parser: argparse.ArgumentParser, command: str | None, extra: list[str]) -> NoReturn:
    """Arguments no parser took: the error comes from the command's own parser (so it points
    at ``sensekit COMMAND --help``, where its options are), with the closest option names."""
    from sensekit.suggest import close_matches, did_you_mean

    target = parser
    for action in parser._subparsers._group_actions if parser._subparsers else []:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            target = action.choices[command]
    known = [o for a in target._actions for o in a.option_strings if o.startswith("--")]
    hints = []
    for arg in extra:
        if arg.startswith("--"):
            close = close_matches(arg.split("=", 1)[0], known, n=2, cutoff=_OPTION_CUTOFF)
            hints += [c for c in close if c not in hints]
    tail = f"; {did_you_mean(hints, quote=str, sep=' or ')}" if hints else ""
    mine = [a for a in extra if a in _GLOBAL_OPTIONS or (len(a) > 1 and a[0] == "-" and set(a[1:]) == {"v"})]
    if mine and command:                    # `sensekit run clapper -q`: an option of sensekit itself
        tail += f" ({' '.join(mine)} goes before the command: sensekit {' '.join(mine)} {command} ...)"
    target.error(f"unrecognized arguments: {' '.join(extra)}{tail}")


def setup_logging(verbose: int, quiet: bool) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    logging.basicConfig(level=level, format="%(message)s" if verbose == 0 else
                        "%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    install_rate_limit()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(_command_in(argv), lazy=True)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            _unrecognized(parser, getattr(args, "command", None), extra)
    except SystemExit as exc:     # a bad argument (one line printed), --help or --version
        return exc.code if isinstance(exc.code, int) else 2
    setup_logging(args.verbose, args.quiet)
    if not getattr(args, "func", None):    # `sensekit` alone is a mistake: one line, status 2 (argparse's way)
        print("sensekit: error: name a command, e.g. `sensekit run clapper`; `sensekit --help` lists them, "
              "`sensekit apps` the apps", file=sys.stderr)
        return 2
    try:
        check_outputs_apart(parser, args)
        return int(args.func(args) or 0)
    except SensekitError as exc:
        if args.verbose > 1:
            raise
        from sensekit.cli.setting_origin import located

        print(f"sensekit: error: {located(str(exc), args)}", file=sys.stderr)
        return exit_status(exc)
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        # The reader went away (e.g. `sensekit events ... | head`): stop quietly.
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:       # e.g. the disk filled up while writing an output
        return _os_error(exc, args.verbose)
    finally:
        flush_rate_limit()


def _os_error(exc: OSError, verbose: int) -> int:
    """An ``OSError`` out of a command: one line, status 2 (the traceback under ``-vv``); status 0,
    quietly, when it was the closing lines written to a terminal closed (SIGHUP): the files were
    finished before them."""
    if terminal_gone(exc):
        return 0
    if verbose > 1:
        raise exc
    print(f"sensekit: error: {exc}", file=sys.stderr)
    return 2


def _interrupted() -> int:
    """Ctrl-C (and SIGTERM, SIGHUP in ``sensekit events``): one line, status 130; none when the
    terminal that sent SIGHUP is gone."""
    try:
        print("sensekit: interrupted", file=sys.stderr)
    except OSError as exc:
        if not terminal_gone(exc):
            raise
    return 130
