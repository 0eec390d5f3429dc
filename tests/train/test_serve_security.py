"""``ginrummy serve`` is safe by default: each attack a hostile page, a rebound DNS name or a
misbehaving client can make is refused with its status, every response carries the security
headers, one slow game does not hold up the others, and fifty clients at once are all served."""
from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
from typing import Any, Iterator, Optional

import pytest

from agents import REGISTRY, RandomAgent
from train.play import serve
from train.play.serve import MAX_BODY, MAX_DEPTH, SECURITY_HEADERS, TOKEN_HEADER, WEB, Server, make_server

SERVER = {"opponent": "simple", "episode": "hand", "seed": 7}
EVIL = "http://evil.example"


def start(**options: Any) -> Server:
    """A server on a free loopback port, serving on a thread of its own."""
    running = make_server(port=0, **{**SERVER, **options})
    threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return running


@pytest.fixture
def server() -> Iterator[Server]:
    """A running server with :data:`SERVER`'s options."""
    running = start()
    yield running
    running.shutdown()
    running.server_close()


def exchange(server: Server, method: str, path: str, body: bytes = b"",
             headers: Optional[dict[str, str]] = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request on a new connection with exactly ``headers`` (http.client adds Host, unless
    given, and Content-Length): the status, the headers and the body of the answer."""
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=30)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def page_headers(server: Server, **changes: Optional[str]) -> dict[str, str]:
    """The headers of the page's own POST (JSON, the token, the server's origin), with
    ``changes`` (underscores for dashes; None leaves a header out)."""
    host, port = server.server_address[:2]
    headers: dict[str, Optional[str]] = {"Content-Type": "application/json", TOKEN_HEADER: server.token,
                                         "Origin": f"http://{host}:{port}"}
    headers.update({name.replace("_", "-"): value for name, value in changes.items()})
    return {name: value for name, value in headers.items() if value is not None}


def post(server: Server, path: str, body: Any, **changes: Optional[str]) -> tuple[int, Any]:
    """POST the JSON ``body`` with :func:`page_headers`: status and JSON answer."""
    status, _, data = exchange(server, "POST", path, json.dumps(body).encode(), page_headers(server, **changes))
    return status, json.loads(data)


def get(server: Server, path: str, **headers: str) -> tuple[int, Any]:
    """GET ``path``: status and JSON answer."""
    status, _, data = exchange(server, "GET", path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    return status, json.loads(data)


def raw(server: Server, request: bytes) -> bytes:
    """Send ``request`` as it is and read the whole answer until the server closes."""
    with socket.create_connection(server.server_address[:2], timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_a_post_from_another_site_is_refused_with_403(server):
    port = server.server_address[1]
    for origin in (EVIL, "null", f"http://127.0.0.1:{port + 1}", f"https://127.0.0.1:{port}",
                   f"http://evil.example@127.0.0.1:{port}", f"http://127.0.0.1:{port}/x"):
        status, answer = post(server, "/api/games", {}, Origin=origin)
        assert status == 403 and "only this server's own page" in answer["error"], origin
    # the attack: a foreign page's "simple" request, which needs no preflight
    status, _, _ = exchange(server, "POST", "/api/games", b'{"command":"draw"}',
                            {"Origin": EVIL, "Content-Type": "text/plain"})
    assert status == 403
    assert get(server, "/api/setup", Origin=EVIL)[0] == 403
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", None):
        assert post(server, "/api/games", {}, Origin=origin)[0] == 200, origin


def test_a_post_that_is_not_json_is_refused_with_415(server):
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        status, answer = post(server, "/api/games", {}, Content_Type=kind)
        assert status == 415 and answer["error"] == "the body must be sent as application/json", kind
    assert post(server, "/api/games", {}, Content_Type="application/json; charset=utf-8")[0] == 200


def test_a_post_without_the_pages_token_is_refused_with_403(server):
    for token in (None, "", "guess", server.token[:-1], server.token + "x", "é"):
        status, answer = post(server, "/api/games", {}, X_Ginrummy_Token=token)
        assert status == 403 and f"missing or wrong {TOKEN_HEADER}" in answer["error"], token
    _, _, page = exchange(server, "GET", "/")
    token = re.search(rb'<meta name="ginrummy-token" content="([\w-]+)">', page).group(1).decode()
    assert len(token) >= 40 and post(server, "/api/games", {}, X_Ginrummy_Token=token)[0] == 200
    other = make_server(port=0, **SERVER)
    assert other.token != server.token
    other.server_close()


def test_a_host_that_is_not_this_server_is_refused_with_403(server):
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends Host evil.example."""
    port = server.server_address[1]
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", f"localhost.evil.example:{port}",
                 f"evil.example@127.0.0.1:{port}", f"127.0.0.1:{port}/", ""):
        for method, path in (("GET", "/"), ("GET", "/app.js"), ("GET", "/api/setup"), ("POST", "/api/games")):
            body = b"{}" if method == "POST" else b""
            status, _, data = exchange(server, method, path, body, {**page_headers(server), "Host": host})
            assert status == 403 and b"is not this server" in data and server.token.encode() not in data, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert exchange(server, "GET", "/", headers={"Host": host})[0] == 200, host
    two_hosts = f"GET /api/setup HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\n\r\n".encode()
    assert raw(server, two_hosts).startswith(b"HTTP/1.0 403")


def test_a_server_bound_to_all_addresses_takes_ip_hosts_but_no_other_names():
    running = Server(("0.0.0.0", 0), serve.Site(opponent="random"))
    port = running.server_address[1]
    try:
        assert running.names_it(f"192.0.2.7:{port}") and running.names_it(f"[::1]:{port}")
        assert not running.names_it(f"evil.example:{port}") and not running.names_it("192.0.2.7:1")
    finally:
        running.server_close()


def test_game_ids_are_random_and_a_guessed_one_is_404(server):
    ids = [post(server, "/api/games", {})[1]["id"] for _ in range(3)]
    assert len(set(ids)) == 3 and all(re.fullmatch(r"[\w-]{22,}", game_id) for game_id in ids)
    for guess in ("1", "2", "0", ids[0][:-1], ids[0].upper(), "..%2F"):
        assert get(server, f"/api/games/{guess}")[0] == 404, guess
        status, answer = post(server, f"/api/games/{guess}/move", {"command": "pass"})
        assert status == 404 and "no such game" in answer["error"], guess


def test_the_opponent_is_one_of_the_servers_list(server):
    offered = get(server, "/api/setup")[1]["opponents"]
    shipped = ["random", "greedy", "montecarlo", "ppo"] + (["selfplay"] if serve.WEIGHTS["selfplay"].is_file() else [])
    assert offered == server.site.opponents == ["simple", *shipped]
    answers = []
    for opponent in ("montecarlo:samples=100000,candidates=108", "ppo:path=/etc/passwd", "ppo:path=/no/such/file",
                     "greedy:lookahead=false", " greedy", "Greedy", "nobody"):
        status, answer = post(server, "/api/games", {"opponent": opponent})
        assert status == 400 and answer["error"].startswith(f"opponent must be one of {offered}"), opponent
        answers.append(answer)
    assert all(answer == answers[0] for answer in answers)  # nothing said about the files named
    assert post(server, "/api/games", {"opponent": {"name": "ppo", "path": "/etc/passwd"}})[0] == 400
    status, game = post(server, "/api/games", {"opponent": "random"})
    assert status == 200 and game["opponent"] == "random"


def test_a_neural_opponent_is_offered_only_where_its_weights_are(monkeypatch, tmp_path):
    from agents.neural.policy import DEFAULT_CHECKPOINT, SELFPLAY_CHECKPOINT

    assert serve.WEIGHTS == {"ppo": DEFAULT_CHECKPOINT, "selfplay": SELFPLAY_CHECKPOINT}
    monkeypatch.setitem(serve.WEIGHTS, "ppo", tmp_path / "missing.pt")
    monkeypatch.setitem(serve.WEIGHTS, "selfplay", DEFAULT_CHECKPOINT)
    assert serve.shipped_opponents() == ["random", "simple", "greedy", "montecarlo", "selfplay"]


def test_a_too_long_body_is_refused_with_413(server):
    status, answer = post(server, "/api/games", {"pad": "x" * MAX_BODY})
    assert status == 413 and answer == {"error": f"the body must be at most {MAX_BODY} bytes"}
    started = time.monotonic()
    declared = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{server.server_address[1]}\r\n"
                f"Content-Type: application/json\r\n{TOKEN_HEADER}: {server.token}\r\n"
                f"Content-Length: {10 ** 12}\r\n\r\n").encode()
    assert raw(server, declared).startswith(b"HTTP/1.0 413") and time.monotonic() - started < 5
    assert raw(server, declared.replace(b"Content-Length: ", b"Transfer-Encoding: chunked\r\nX: ")).startswith(
        b"HTTP/1.0 411")


@pytest.mark.parametrize("body", ["[" * 1000 + "]" * 1000, '{"a": ' * 1000 + "1" + "}" * 1000,
                                  json.dumps({"command": json.loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))})])
def test_a_deeply_nested_body_is_refused_with_400(server, body):
    status, _, data = exchange(server, "POST", "/api/games", body.encode(), page_headers(server))
    assert status == 400 and json.loads(data) == {"error": f"the body is nested deeper than {MAX_DEPTH} levels"}


def test_brackets_inside_strings_are_not_nesting(server):
    game = post(server, "/api/games", {})[1]
    status, answer = post(server, f"/api/games/{game['id']}/move", {"command": "[{" * 500})
    assert status == 400 and "unknown command" in answer["error"]


def test_every_response_has_the_security_headers(server):
    game = post(server, "/api/games", {})[1]
    answers = [exchange(server, "GET", path) for path in ("/", "/app.js", "/style.css", "/api/setup",
                                                         f"/api/games/{game['id']}", "/api/nothing")]
    answers += [exchange(server, "POST", "/api/games", b"{}", {"Content-Type": "text/plain"}),
                exchange(server, "GET", "/", headers={"Host": "evil.example"}),
                exchange(server, "PUT", "/api/games")]                  # http.server's own error page
    assert [status for status, _, _ in answers] == [200, 200, 200, 200, 200, 404, 415, 403, 501]
    for _, headers, _ in answers:
        assert {name: headers[name] for name in SECURITY_HEADERS} == SECURITY_HEADERS
    policy = SECURITY_HEADERS["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert SECURITY_HEADERS["X-Frame-Options"] == "DENY" and SECURITY_HEADERS["Cache-Control"] == "no-store"


def test_the_page_needs_nothing_its_content_security_policy_forbids():
    page = (WEB / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script\b[^>]*>", page) == ['<script src="/app.js">']
    assert not re.search(r"<style|\sstyle=|\son\w+=|javascript:", page, re.I)
    assert not re.search(r"\beval\(|new Function|innerHTML|\.style\b", (WEB / "app.js").read_text(encoding="utf-8"))


class Stuck(RandomAgent):
    """``random``, but each decision first waits until :attr:`go` is set."""

    go = threading.Event()

    def act(self, observation: Any) -> int:
        self.go.wait(30)
        return super().act(observation)


def test_a_slow_opponent_does_not_hold_up_other_games(monkeypatch):
    monkeypatch.setitem(REGISTRY, "stuck", Stuck)
    Stuck.go.clear()
    running = start(opponent="stuck", decision_timeout=0.5)
    try:
        fast = post(running, "/api/games", {"opponent": "simple", "seed": 0})[1]
        started = time.monotonic()
        status, answer = post(running, "/api/games", {"seed": 1})      # seed 1: the agent takes the first turn
        assert status == 503 and "still thinking after 0.5 s" in answer["error"] and time.monotonic() - started < 3
        slow = answer["pending"]
        for ask in (lambda: get(running, f"/api/games/{fast['id']}"), lambda: get(running, "/api/setup"),
                    lambda: post(running, f"/api/games/{fast['id']}/move", {"command": "pass"}),
                    lambda: post(running, "/api/games", {"opponent": "greedy"})):
            started = time.monotonic()
            assert ask()[0] == 200 and time.monotonic() - started < 2
        for ask in (lambda: get(running, f"/api/games/{slow}"),
                    lambda: post(running, f"/api/games/{slow}/move", {"command": "pass"})):
            status, answer = ask()
            assert status == 503 and answer["pending"] == slow and "still thinking" in answer["error"]
        Stuck.go.set()
        deadline = time.monotonic() + 10
        while (answer := get(running, f"/api/games/{slow}"))[0] == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answer[0] == 200 and answer[1]["news"][0].startswith("stuck ")
    finally:
        Stuck.go.set()
        running.shutdown()
        running.server_close()


def test_idle_connections_are_closed_and_do_not_lock_others_out(monkeypatch):
    monkeypatch.setattr(serve.Handler, "timeout", 0.5)
    running = start()
    try:
        idle = [socket.create_connection(running.server_address[:2], timeout=10) for _ in range(100)]
        half = socket.create_connection(running.server_address[:2], timeout=10)
        half.sendall(f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{running.server_address[1]}\r\n"
                     f"Content-Type: application/json\r\n{TOKEN_HEADER}: {running.token}\r\n"
                     "Content-Length: 10\r\n\r\n{}".encode())
        started = time.monotonic()
        assert get(running, "/api/setup")[0] == 200 and time.monotonic() - started < 2
        assert half.recv(65536).startswith(b"HTTP/1.0 408")
        assert all(connection.recv(1) == b"" for connection in idle)      # closed by the server
        assert time.monotonic() - started < 5
        for connection in (*idle, half):
            connection.close()
    finally:
        running.shutdown()
        running.server_close()


def test_fifty_parallel_clients_are_all_served(monkeypatch):
    """Fifty threads, each on new connections for 3 s: no connection error and every answer a 200."""
    monkeypatch.setattr(serve, "MAX_GAMES", 10_000)     # no game forgotten while its client still asks for it
    running = start()
    statuses: list[int] = []
    errors: list[BaseException] = []
    rounds = [0] * 50
    ready = threading.Barrier(50)

    def client(number: int) -> None:
        ready.wait()
        end = time.monotonic() + 3
        try:
            while time.monotonic() < end:
                status, game = post(running, "/api/games", {})
                statuses.extend([status, get(running, f"/api/games/{game['id']}")[0], get(running, "/api/setup")[0],
                                 exchange(running, "GET", "/app.js")[0]])
                rounds[number] += 1
        except BaseException as err:  # noqa: BLE001  (collected, asserted below)
            errors.append(err)
    threads = [threading.Thread(target=client, args=(number,)) for number in range(50)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        running.shutdown()
        running.server_close()
    assert errors == [] and min(rounds) >= 1 and set(statuses) == {200}
