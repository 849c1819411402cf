"""TLS from the Python SDK, with a CA made at run time by ``skat certs``: straight to a
``skat serve --tls-cert``, and through Debian's nginx (deploy/nginx/skat.conf) ending TLS
in front of a plain-text ``skat serve --trusted-proxies``, where a Rust, a Python and a
TypeScript bot play one table. No token goes in plain text to another machine."""

import os
import pathlib
import shutil
import socket
import subprocess
import threading
import time

import grpc
import pytest

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from skat_sdk import PlainTextRefused, Seat, ServerAddress, lobby, play
from skat_bot import JackBot

REPO = pathlib.Path(__file__).resolve().parents[3]
SKAT = os.environ.get("SKAT_BIN", str(REPO / "target" / "debug" / "skat"))
TS_BOT = REPO / "clients" / "typescript" / "dist" / "src" / "main.js"
NGINX_SITE = REPO / "deploy" / "nginx" / "skat.conf"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=15):
    end = time.time() + timeout
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


@pytest.fixture()
def certs(tmp_path):
    subprocess.run([SKAT, "certs", "--out", str(tmp_path)], check=True, capture_output=True)
    return tmp_path


def serve(*args):
    return subprocess.Popen([SKAT, "serve", "--metrics-addr", "off", "--database", "memory", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_python_bot_plays_over_tls_and_refuses_plain_text_for_tokens(certs):
    port = free_port()
    server = serve("--addr", f"127.0.0.1:{port}", "--web-addr", "off", "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server-key.pem"))
    try:
        wait_port(port)
        address = ServerAddress(f"https://localhost:{port}", ca_file=str(certs / "ca.pem"))
        assert address.tls and address.target == f"localhost:{port}"
        with address.channel() as channel:
            table = rpc.SkatServiceStub(channel).CreateTable(pb.CreateTableRequest(seats=3, deals=2, seed=3)).table_id
        seats = [Seat.join(address, table, f"py{i}") for i in range(3)]
        results = [None] * 3

        def run(i):
            results[i] = play(seats[i], JackBot(i))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert all(r is not None and len(r.standings) == 3 for r in results)

        # Without the CA the certificate is not trusted: an error, never plain text instead.
        with pytest.raises(grpc.RpcError) as e:
            Seat.join(ServerAddress(f"https://localhost:{port}", ca_file=None), table, "x")
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        # Plain text to the TLS port: no answer.
        with pytest.raises(grpc.RpcError):
            Seat.join(f"127.0.0.1:{port}", table, "x")
    finally:
        server.kill()
        server.wait()


def test_no_token_goes_in_plain_text_to_another_machine(monkeypatch):
    monkeypatch.delenv("SKAT_INSECURE", raising=False)
    # 192.0.2.1 is TEST-NET-1, never this machine: refused before any connection.
    for call in (
        lambda: Seat.join("192.0.2.1:50051", "t1"),
        lambda: Seat.with_token("http://192.0.2.1:50051", "t1", "seat-token"),
        lambda: Seat("192.0.2.1:50051", "t1", "seat-token", 0),
        lambda: lobby("192.0.2.1:50051", "bot-token", JackBot),
    ):
        start = time.time()
        with pytest.raises(PlainTextRefused) as e:
            call()
        assert "https://" in str(e.value) and "insecure" in str(e.value)
        assert time.time() - start < 2
    assert "bot token" in str(pytest.raises(PlainTextRefused, lobby, "192.0.2.1:1", "b", JackBot).value)
    # Loopback, TLS, or plain text allowed explicitly: no refusal.
    ServerAddress("127.0.0.1:1").check_secret("seat token")
    ServerAddress("localhost:1").check_secret("seat token")
    ServerAddress("[::1]:1").check_secret("seat token")
    ServerAddress("https://skat.example.org").check_secret("seat token")
    ServerAddress("192.0.2.1:1", insecure=True).check_secret("seat token")
    monkeypatch.setenv("SKAT_INSECURE", "1")
    ServerAddress("192.0.2.1:1").check_secret("seat token")
    # A redirect keeps the scheme and the CA.
    moved = ServerAddress("https://a.example", ca_file="/ca.pem").at("b.example:8443")
    assert (moved.url, moved.target, moved.ca_file) == ("https://b.example:8443", "b.example:8443", "/ca.pem")
    assert ServerAddress("https://a.example").target == "a.example:443"


def nginx_binary():
    return next((p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.path.exists(p)), shutil.which("nginx"))


def nginx_conf(tmp, listen, web_listen, grpc_port, web_port):
    """deploy/nginx/skat.conf with ports, certificates and upstreams replaced, in a minimal
    main configuration that keeps everything in ``tmp``."""
    lines, listens = [], 0
    for line in NGINX_SITE.read_text().splitlines():
        if line.strip() == "listen 443 ssl http2;":
            listens += 1
            line = f"    listen 127.0.0.1:{listen if listens == 1 else web_listen} ssl http2;"
        line = line.replace("/etc/ssl/skat/fullchain.pem", str(tmp / "server.pem")).replace("/etc/ssl/skat/privkey.pem", str(tmp / "server-key.pem"))
        line = line.replace("127.0.0.1:50051", f"127.0.0.1:{grpc_port}").replace("127.0.0.1:8080", f"127.0.0.1:{web_port}")
        lines.append(line)
    assert listens == 2
    temp = "\n".join(f"  {kind}_temp_path {tmp}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = tmp / "nginx.conf"
    conf.write_text(
        f"daemon off;\nmaster_process off;\npid {tmp}/nginx.pid;\nerror_log {tmp}/nginx-error.log warn;\n"
        f"events {{ worker_connections 1024; }}\nhttp {{\n  access_log {tmp}/nginx-access.log;\n{temp}\n"
        # The proxy reaches skat from an address of its own: the only one skat trusts.
        "  grpc_bind 127.0.0.9;\n" + "\n".join(lines) + "\n}\n"
    )
    return conf


def test_bots_in_three_languages_play_through_nginx(certs):
    nginx = nginx_binary()
    node = shutil.which("node")
    if nginx is None:
        assert not os.environ.get("SKAT_REQUIRE_NGINX"), "SKAT_REQUIRE_NGINX is set but nginx is missing"
        pytest.skip("nginx is not installed")
    if node is None or not TS_BOT.exists():
        assert not os.environ.get("SKAT_REQUIRE_TS_BOT"), f"the TypeScript bot is not built: {TS_BOT}"
        pytest.skip("the TypeScript bot is not built")
    grpc_port, web_port, listen, web_listen = free_port(), free_port(), free_port(), free_port()
    log = certs / "skat.log"
    procs = []
    try:
        with open(log, "w") as out:
            procs.append(
                subprocess.Popen(
                    [SKAT, "serve", "--addr", f"127.0.0.1:{grpc_port}", "--web-addr", f"127.0.0.1:{web_port}", "--metrics-addr", "off", "--database", "memory", "--trusted-proxies", "127.0.0.9/32", "--action-timeout", "30s"],
                    stdout=subprocess.DEVNULL,
                    stderr=out,
                    env={**os.environ, "RUST_LOG": "info"},
                )
            )
        procs.append(subprocess.Popen([nginx, "-c", str(nginx_conf(certs, listen, web_listen, grpc_port, web_port)), "-p", str(certs)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_port(grpc_port)
        wait_port(listen)
        url = f"https://localhost:{listen}"
        ca = str(certs / "ca.pem")
        address = ServerAddress(url, ca_file=ca)
        with address.channel() as channel:
            table = rpc.SkatServiceStub(channel).CreateTable(pb.CreateTableRequest(seats=3, deals=3, seed=11)).table_id
        env = {**os.environ, "SKAT_CA_FILE": ca}
        rust = subprocess.Popen([SKAT, "bot", "--server", url, "--table", table, "--name", "rust", "--seat", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        ts = subprocess.Popen([node, str(TS_BOT), "--server", url, "--ca-file", ca, "--table", table, "--name", "typescript", "--seat", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        procs += [rust, ts]
        finished = play(Seat.join(address, table, "python", seat=2), JackBot(5))
        assert sorted(s.name for s in finished.standings) == ["python", "rust", "typescript"]
        for p in (rust, ts):
            said = p.communicate(timeout=60)[0].decode()
            assert p.returncode == 0, said
        # The server saw each bot's own address (127.0.0.1) through the proxy, not the
        # proxy's (127.0.0.9).
        logged = log.read_text()
        joins = [line for line in logged.splitlines() if "seat taken" in line]
        assert len(joins) == 3 and all("client=127.0.0.1" in line for line in joins), logged
        assert "client=127.0.0.9" not in logged
    finally:
        for p in procs:
            p.kill()
            p.wait()
