"""A port that cannot be listened on is one line naming the reason and the fix, for every
command that listens (osc-listen, --osc-control, --panel); it said "[Errno 98] Address already
in use" or "[Errno -2] Name or service not known"."""
from __future__ import annotations

import errno
import socket

import pytest

from sensekit.bind_errors import bind_failure
from sensekit.cli import main

IN_USE = "is in use by another program (stop it, or choose another port)"


@pytest.mark.parametrize("exc, said", [
    (OSError(errno.EADDRINUSE, "Address already in use"),
     "port 9000 is in use by another program (stop it, or choose another port)"),
    (OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address"),
     "no network interface of this machine has that address (127.0.0.1 listens on this machine "
     "only, 0.0.0.0 on all)"),
    (socket.gaierror(-2, "Name or service not known"), "no such host"),
    (OSError(errno.ENETDOWN, "Network is down"), "Network is down"),
])
def test_the_reason_is_worded_with_its_fix(exc, said):
    assert bind_failure(exc, 9000) == said


def test_a_low_port_without_the_right_says_to_choose_another():
    said = bind_failure(PermissionError(errno.EACCES, "Permission denied"), 80)
    assert said == "ports below 1024 need administrator rights (choose a port from 1024 up)"


def _taken(kind: int) -> tuple[socket.socket, int]:
    sock = socket.socket(socket.AF_INET, kind)
    sock.bind(("127.0.0.1", 0))
    if kind == socket.SOCK_STREAM:
        sock.listen()
    return sock, sock.getsockname()[1]


@pytest.mark.parametrize("argv, kind, prefix", [
    (["osc-listen", "{port}", "--seconds", "1"], socket.SOCK_DGRAM, "cannot listen on 127.0.0.1:{port}: "),
    (["events", "demo", "--max-items", "3", "--osc-control", "{port}"], socket.SOCK_DGRAM,
     "cannot listen for OSC on 127.0.0.1:{port}: "),
    (["events", "demo", "--max-items", "3", "--panel", "127.0.0.1:{port}"], socket.SOCK_STREAM,
     "--panel: cannot listen on 127.0.0.1:{port}: "),
])
def test_a_port_in_use_names_the_fix_on_every_command(argv, kind, prefix, capsys):
    sock, port = _taken(kind)
    with sock:
        assert main([a.format(port=port) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err == f"sensekit: error: {prefix.format(port=port)}port {port} {IN_USE}\n"


def test_a_host_that_does_not_resolve_is_named(capsys):
    assert main(["osc-listen", "9", "--host", "nohost.invalid", "--seconds", "1"]) == 2
    assert capsys.readouterr().err == "sensekit: error: cannot listen on nohost.invalid:9: no such host\n"


def test_an_osc_target_that_does_not_resolve_is_named(capsys):
    # it said "[Errno -2] Name or service not known"
    assert main(["events", "demo", "--max-items", "1", "--osc", "nohost.invalid:9000"]) == 2
    assert capsys.readouterr().err == ("sensekit: error: cannot resolve OSC host 'nohost.invalid': no such "
                                       "host (check the name, or give its IP address)\n")
