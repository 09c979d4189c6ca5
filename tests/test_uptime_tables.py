"""What grows with uptime or with hostile input, among what was merged on 27 November (harden17's
long-run sweep), counted exactly: the settings table looked up with thousands of unknown keys,
and the panel's malformed-request lines under the log rate limit. The rate limit's own table is
in ``tests/test_ratelimit.py``."""
from __future__ import annotations

import logging
import sys

import numpy as np
import pytest
from aiohttp.http_exceptions import BadHttpMessage

from sensekit.errors import ConfigError
from sensekit.panel import malformed
from sensekit.ratelimit import RateLimitFilter
from sensekit.settings.declare import REGISTRY
from sensekit.settings.registry import _FINDERS, lookup


def _hostile_keys(n: int) -> list[str]:
    rng = np.random.default_rng(17)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz_."))
    return ["".join(rng.choice(letters, int(rng.integers(3, 300)))) + f".k{i}" for i in range(n)]


def test_unknown_setting_keys_import_and_register_nothing_more():
    """Each unknown key completes the table once (the stage modules, then the apps); 2,000 more
    (OSC, the panel, a profile: anyone's text) import no module and add no group or finder."""
    keys = _hostile_keys(2000)
    with pytest.raises(ConfigError):
        lookup("nosuch.key")
    counts = (len(sys.modules), len(REGISTRY), len(_FINDERS))
    for key in keys:
        with pytest.raises(ConfigError):
            lookup(key)
    assert (len(sys.modules), len(REGISTRY), len(_FINDERS)) == counts


def test_malformed_requests_are_one_kind_of_line_however_many_and_whatever_they_say():
    """aiohttp's record for each request it cannot parse, from 2,000 addresses with 2,000
    different complaints, is one kind for the rate limit (5 lines shown) and 2,000 counted."""
    flt = RateLimitFilter(burst=5, interval_s=10.0, clock=lambda: 0.0)
    logger = logging.getLogger("aiohttp.server")
    shown: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            shown.append(record.getMessage())

    handler, before = Keep(), malformed.install().refused
    handler.addFilter(flt)
    logger.addHandler(handler)
    try:
        for i, text in enumerate(_hostile_keys(2000)):
            try:
                raise BadHttpMessage(f"Invalid header value {text!r}")
            except BadHttpMessage as exc:
                logger.error("Error handling request from %s", f"10.0.{i // 250}.{i % 250}", exc_info=exc)
    finally:
        logger.removeHandler(handler)
        malformed.uninstall()
    assert flt.kinds() == 1 and len(shown) == 5 and flt.suppressed_total == 1995
    assert malformed.install().refused - before == 2000
    malformed.uninstall()


def test_panels_started_and_stopped_leave_no_filter_behind():
    logger = logging.getLogger("aiohttp.server")
    before = list(logger.filters)
    for _ in range(100):
        malformed.install()
        malformed.install()
        malformed.uninstall()
        malformed.uninstall()
    assert logger.filters == before
