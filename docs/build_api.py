"""Build the API reference from the docstrings with pdoc; a warning is an error.

    python docs/build_api.py [--out build/api]       # then open build/api/index.html

Every module of the ``sensekit`` package gets a page. pdoc walks into a package's
submodules only when the package does not limit itself with ``__all__`` (``sensekit``,
``sensekit.vision`` and others do), so each module is named explicitly, once.

Any warning while importing or rendering (an annotation pdoc cannot resolve, a module
that fails to import, a broken cross-reference) is printed and the exit status is 1;
CI runs this, and ``tests/test_docs.py`` runs ``build()`` too. Cost: ~5-40 s (it
imports every module and renders ~65 pages).
"""
from __future__ import annotations

import argparse
import os
import pkgutil
import re
import sys
import warnings
from pathlib import Path

#: the ``python -m`` scripts (``sensekit.__main__``, ``sensekit.synth.__main__``...): running one is a
#: command, not an API; importing ``sensekit.__main__`` would start the CLI
SCRIPTS = r".*\.__main__$"


def module_specs() -> list[str]:
    """The modules to hand to pdoc: each one once (a package spec also covers what it walks into)."""
    import pdoc.extract

    import sensekit

    names = ["sensekit"] + sorted(m.name for m in pkgutil.walk_packages(sensekit.__path__, "sensekit.")
                                  if not re.match(SCRIPTS, m.name))
    specs: list[str] = []
    covered: set[str] = set()
    for name in names:
        if name not in covered:
            specs.append(name)
            covered.update(pdoc.extract.walk_specs([name]))
    return specs + [f"!{SCRIPTS}"]          # nor the scripts pdoc finds walking a package


def build(out: Path) -> list[str]:
    """Render the reference into ``out``; returns the warnings (empty when all is well)."""
    import pdoc
    import pdoc.render

    pdoc.render.configure(docformat="restructuredtext", show_source=False,
                          footer_text="sensekit - control programs with a camera and a microphone")
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    here = os.getcwd()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # from the output folder: pdoc warns when the folder it runs in holds a `sensekit` that is
        # not the imported package's path (a checkout linked in by symlinks, as the README test does)
        os.chdir(out)
        try:
            pdoc.pdoc(*module_specs(), output_directory=out)
        finally:
            os.chdir(here)
    return [f"{Path(w.filename).name}:{w.lineno}: {w.category.__name__}: {w.message}" for w in caught]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/api"), help="output folder (default build/api)")
    args = parser.parse_args(argv)
    problems = build(args.out)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"API docs: {len(problems)} warning(s), treated as errors", file=sys.stderr)
        return 1
    print(f"API docs: {len(list(args.out.rglob('*.html')))} pages in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
