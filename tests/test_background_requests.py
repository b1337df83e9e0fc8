"""The GETs vero makes besides model calls (the capability probe of ``vero.core.capabilities``, the chat's
check of ``GET /models``) carry the API key: they stay with the endpoint's origin and are bounded in time
and size, whatever the server answers."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from vero._console import MAX_MODELS_BYTES, check_endpoint
from vero.core.capabilities import MAX_PROBE_BYTES, json_schema_support
from vero.core.chat_openai import ChatOpenAI

KEY = "sk-test-probe-0123456789"
PROPS = b'{"total_slots": 1}'  # llama.cpp's /props: JSON-schema replies supported


@contextmanager
def server(answer) -> Iterator[tuple[str, list[tuple[str, str | None]]]]:
    """A local server whose GETs ``answer(handler)``; yields its /v1 URL and the (path, Authorization) it saw."""
    seen: list[tuple[str, str | None]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            seen.append((self.path, self.headers.get("Authorization")))
            try:
                answer(self)
            except OSError:  # the client went away
                pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def send(handler, body: bytes, status: int = 200, **headers: str) -> None:
    handler.send_response(status)
    for name, value in {"Content-Length": str(len(body)), **headers}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def test_a_redirect_to_another_origin_is_not_followed_with_the_key():
    with server(lambda h: send(h, PROPS)) as (other, seen_elsewhere):
        with server(lambda h: send(h, b"", 302, Location=other.removesuffix("/v1") + h.path)) as (url, _):
            assert json_schema_support(url, api_key=KEY, timeout=2) is False
    assert seen_elsewhere == []


def test_a_body_that_trickles_in_is_given_up_after_the_timeout():
    def trickle(handler):  # the whole answer says "supported", one byte at a time over about 1.4 s
        handler.send_response(200)
        handler.end_headers()
        for byte in PROPS + b" " * 10:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.05)

    with server(trickle) as (url, _):
        assert json_schema_support(url, api_key=KEY, timeout=0.3) is False


def test_a_body_past_the_size_limit_is_no_answer():
    padded = b'{"total_slots": 1' + b" " * MAX_PROBE_BYTES + b"}"
    with server(lambda h: send(h, padded)) as (url, _):
        assert json_schema_support(url, api_key=KEY, timeout=2) is False
    with server(lambda h: send(h, PROPS)) as (url, seen):  # and a plain answer is read, the key sent to it
        assert json_schema_support(url, api_key=KEY, timeout=2) is True
    assert seen == [("/props", f"Bearer {KEY}")]


def trickle_models(handler) -> None:
    """A list of models that never ends, one byte at a time."""
    handler.send_response(200)
    handler.end_headers()
    handler.wfile.write(b'{"data": [')
    for _ in range(100):
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(0.05)


def flood_models(handler) -> None:
    """A list of models larger than any real one (the client stops reading: the write fails)."""
    handler.send_response(200)
    handler.end_headers()
    handler.wfile.write(b'{"data": [{"id": "m"}], "pad": "')
    for _ in range(MAX_MODELS_BYTES // 65536 + 2):
        handler.wfile.write(b"x" * 65536)
    handler.wfile.write(b'"}')


def test_the_chat_s_check_of_the_model_list_gives_up_on_a_body_that_trickles_in():
    with server(trickle_models) as (url, _):
        warning = check_endpoint(ChatOpenAI(model_name="m", api_key=KEY, base_url=url), timeout=0.3)
    assert warning is not None and "did not answer GET /models within 0.3 s" in warning


def test_the_chat_s_check_of_the_model_list_reads_no_more_than_its_limit():
    with server(flood_models) as (url, _):
        assert check_endpoint(ChatOpenAI(model_name="other", api_key=KEY, base_url=url), timeout=30) is None
    with server(lambda h: send(h, b'{"data": [{"id": "m"}]}')) as (url, _):  # a real list is read
        warning = check_endpoint(ChatOpenAI(model_name="other", api_key=KEY, base_url=url), timeout=2)
    assert warning is not None and "does not list the model 'other'" in warning
