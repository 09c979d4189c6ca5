"""Requests the HTTP layer itself finds malformed (harden16's fuzz sweep,
``benchmarks/fuzz_inputs.py --only panel``): a 400 with one line, never a 500, and one
WARNING line in the show's log, never aiohttp's traceback."""
from __future__ import annotations

import json
import logging
import socket

import pytest


def exchange(url: str, request: bytes) -> bytes:
    """``request`` on a raw socket to the panel at ``url``; the answer (up to 8 kB)."""
    port = int(url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.replace(b"PORT", str(port).encode()))
        got = b""
        while b"\r\n\r\n" not in got or len(got) < 40:
            chunk = s.recv(8192)
            if not chunk:
                break
            got += chunk
        head, _, body = got.partition(b"\r\n\r\n")
        length = [int(ln.split(b":")[1]) for ln in head.split(b"\r\n") if ln.lower().startswith(b"content-length")]
        while length and len(body) < length[0]:
            chunk = s.recv(8192)
            if not chunk:
                break
            body += chunk
    return head + b"\r\n\r\n" + body


def status_and_error(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    try:
        return status, json.loads(body)["error"]
    except (ValueError, KeyError):
        return status, body.decode("utf-8", "replace")


def test_a_body_that_is_not_the_gzip_it_claims_is_a_400_naming_it(thread_piece):
    """It was a 500 (aiohttp's ``RequestPayloadError`` out of ``request.read()``) with a traceback."""
    piece = thread_piece()
    body = b'{"x": 10, "y": 20.5}'
    answer = exchange(piece.url, b"POST /api/pick HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
                      b"Content-Type: application/json\r\nContent-Length: %d\r\n"
                      b"Content-Encoding: gzip\r\n\r\n" % len(body) + body)
    status, error = status_and_error(answer)
    assert status == 400, answer[:200]
    assert error == "the request body could not be read: Can not decode content-encoding: gzip"
    assert piece.error is None


def test_a_header_that_is_not_utf8_is_a_400_not_a_500(thread_piece):
    """aiohttp's own 400 for a bad ``Upgrade`` quoted the header and could not encode it: a 500."""
    piece = thread_piece()
    answer = exchange(piece.url, b"GET /ws/live HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nUpgrade: websocke\xc0\x80t\r\n"
                      b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      b"Sec-WebSocket-Version: 13\r\n\r\n")
    status, error = status_and_error(answer)
    assert (status, error) == (400, "the request header 'Upgrade' is not UTF-8 text"), answer[:200]
    answer = exchange(piece.url, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nX-Name: caf\xe9\r\n\r\n")
    assert status_and_error(answer) == (400, "the request header 'X-Name' is not UTF-8 text")


MALFORMED = [
    (b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nHost: 127.0.0.1:PORT\r\n\r\n",
     "Duplicate 'Host' header found."),
    (b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
     "Duplicate Content-Length"),
    (b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nX-" + b"a" * 9000 + b": 1\r\n\r\n",
     "Got more than 8190 bytes"),
    (b"GET /a\xc0\x80pi/info \xb2 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n", ""),
]


@pytest.mark.parametrize("request_bytes, fragment", MALFORMED,
                         ids=["two-hosts", "two-lengths", "long-header", "bad-line"])
def test_a_malformed_request_is_one_warning_line_not_a_traceback(thread_piece, caplog, request_bytes, fragment):
    """aiohttp logged each at ERROR with its traceback (10-25 lines on the show's stderr per
    request anyone sends wrong); now one WARNING line under one template, which the rate limit
    folds into a count."""
    piece = thread_piece()
    with caplog.at_level(logging.INFO):
        answer = exchange(piece.url, request_bytes)
        exchange(piece.url, b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nConnection: close\r\n\r\n")
    assert int(answer.split()[1]) == 400, answer[:200]
    records = [r for r in caplog.records if r.name.startswith("aiohttp")]
    assert records, "the malformed request was not logged at all"
    for r in records:
        assert r.levelno == logging.WARNING and r.exc_info is None, (r.levelname, r.getMessage(), r.exc_info)
        text = r.getMessage()
        assert text.startswith("panel: a malformed request from ") and "\n" not in text and len(text) < 250, text
        assert fragment in text
    assert piece.error is None
