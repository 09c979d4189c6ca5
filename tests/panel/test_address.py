"""``--panel [HOST:]PORT`` parsing and the bind rules, and how the CLI reports them."""
from __future__ import annotations

import pytest

from sensekit.cli import main
from sensekit.errors import ConfigError
from sensekit.panel.address import PanelAddress, is_loopback, parse_panel_address
from sensekit.panel.guard import foreign, token_problem


@pytest.mark.parametrize("text, host, port", [
    ("8765", "127.0.0.1", 8765), ("127.0.0.1:0", "127.0.0.1", 0), ("localhost:80", "localhost", 80),
    ("[::1]:9000", "::1", 9000), ("127.5.5.5:1", "127.5.5.5", 1),
])
def test_loopback_addresses_need_no_token(text, host, port):
    a = parse_panel_address(text)
    assert (a.host, a.port, a.token, a.loopback) == (host, port, None, True)


@pytest.mark.parametrize("text", ["0.0.0.0:8765", "192.168.1.20:8765", "[::]:8765", "studio.local:8765"])
def test_any_other_address_needs_a_token(text):
    with pytest.raises(ConfigError, match="needs --panel-token"):
        parse_panel_address(text)
    a = parse_panel_address(text, "long-enough-token")
    assert a.token == "long-enough-token" and not a.loopback


@pytest.mark.parametrize("text, fragment", [
    ("", "port"), ("abc", "port"), ("70000", "0..65535"), ("-1", "0..65535"), (":8765", "bad host"),
    ("::1:8765", "IPv6"), ("[::1]8765", "IPv6"), ("a b:1", "bad host"), ("http://x:1", "bad host"),
])
def test_bad_addresses_are_named(text, fragment):
    with pytest.raises(ConfigError, match=fragment):
        parse_panel_address(text)


@pytest.mark.parametrize("token", ["short", "has space in it", "tab\there-long"])
def test_weak_or_odd_tokens_are_refused(token):
    with pytest.raises(ConfigError, match="at least 8 printable"):
        parse_panel_address("127.0.0.1:1", token)


def test_the_token_is_never_shown():
    a = PanelAddress("0.0.0.0", 1, "top-secret-value")
    assert "top-secret-value" not in repr(a) and a.url() == "http://0.0.0.0:1/"
    assert PanelAddress("::1", 5).url() == "http://[::1]:5/"
    assert is_loopback("LOCALHOST") and not is_loopback("10.0.0.1")


@pytest.mark.parametrize("argv, fragment", [
    (["run", "clapper", "--headless", "--frames", "1", "--panel", "0.0.0.0:8765"], "needs --panel-token"),
    (["events", "demo", "--panel", "192.168.0.9:1"], "needs --panel-token"),
    (["run", "clapper", "--headless", "--panel-token", "abcdefghij"], "only used with --panel"),
    (["events", "demo", "--panel", "1", "--panel-token", "short"], "at least 8"),
    (["events", "demo", "--panel", "nope"], "port"),
])
def test_the_cli_refuses_in_one_line_with_status_2(argv, fragment, capsys, monkeypatch):
    monkeypatch.delenv("SENSEKIT_PANEL_TOKEN", raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("host, origin, loopback, refused", [
    ("127.0.0.1:8765", None, True, None),
    ("localhost:8765", "http://localhost:8765", True, None),
    ("[::1]:8765", "http://[::1]:8765", True, None),
    ("evil.example:8765", None, True, "loopback address only"),
    ("127.0.0.1:8765", "http://evil.example", True, "another page"),
    ("192.168.1.20:8765", None, False, None),
    ("192.168.1.20:8765", "http://evil.example", False, "another page"),
])
def test_requests_from_other_sites_and_names(host, origin, loopback, refused):
    why = foreign(host, origin, loopback=loopback)
    assert (why is None) if refused is None else (refused in why)


def test_tokens_are_compared_whole():
    assert token_problem(None, None) is None and token_problem("anything", None) is None
    assert token_problem(None, "secret-123")[0] == 401
    assert token_problem("secret-12", "secret-123")[0] == 403
    assert token_problem("secret-1234", "secret-123")[0] == 403
    assert token_problem("secret-123", "secret-123") is None


def test_a_port_in_use_is_one_line(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["events", "demo", "--max-items", "5", "--panel", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"--panel: cannot listen on 127.0.0.1:{port}" in err and len(err.strip().splitlines()) == 1
