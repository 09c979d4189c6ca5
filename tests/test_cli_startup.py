"""Start-up: ``sensekit --help`` imports no command, and the lazy parser lists the same commands
with the same help as the full one (benchmarks/startup.py times it)."""
from __future__ import annotations

import subprocess
import sys

from sensekit.cli import build_parser, command_names, command_summary


def _subcommands(parser):
    action = next(a for a in parser._subparsers._group_actions)
    return {c.dest: c.help for c in action._choices_actions}


def test_the_lazy_parser_lists_every_command_with_its_own_help():
    full = _subcommands(build_parser())
    assert _subcommands(build_parser(lazy=True)) == full
    assert {command_summary(m)[0] for m in command_names() if command_summary(m)} == set(full)
    assert "osc-listen" in full and all(full.values())


def test_a_lazily_built_command_parses_like_the_full_parser():
    argv = ["run", "clapper", "--headless", "--frames", "3", "--set", "clap.min_level=30"]
    lazy = vars(build_parser("run", lazy=True).parse_args(argv))
    full = vars(build_parser().parse_args(argv))
    assert {k: v for k, v in lazy.items() if k != "func"} == {k: v for k, v in full.items() if k != "func"}


def test_help_imports_neither_the_web_server_nor_scipy_nor_pygame():
    code = ("import sys, contextlib, io\nfrom sensekit.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n    code = main(['--help'])\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'aiohttp', 'scipy', 'pygame', 'matplotlib'})\n"
            "print(code, 'snapshot' in out.getvalue(), heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "True", "[]"], out
