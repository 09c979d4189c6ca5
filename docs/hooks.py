"""MkDocs hook: after the site is built, render the pdoc API reference into ``site/api/``.

docs/build_api.py does the rendering (and collects pdoc's warnings); each warning is
logged as a MkDocs warning, so ``mkdocs build --strict`` fails on it like on a broken link.
"""
from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.api")


def on_post_build(config: Any, **_: Any) -> None:
    spec = importlib.util.spec_from_file_location("build_api", Path(__file__).with_name("build_api.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for problem in module.build(Path(config["site_dir"]) / "api"):
        log.warning("API reference: %s", problem)
