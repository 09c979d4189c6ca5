"""House rules the code base keeps: small modules, argparse only in the CLI."""
from pathlib import Path

import sensekit

PACKAGE = Path(sensekit.__file__).parent
MAX_LINES = 600


def test_no_module_is_over_600_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules (one concept each, at most {MAX_LINES} lines): {long}"


def test_argparse_lives_only_under_cli():
    outside = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if "cli" not in p.relative_to(PACKAGE).parts[:1]
               and "import argparse" in p.read_text(encoding="utf-8")]
    assert not outside, f"argparse belongs in sensekit/cli/: {outside}"
