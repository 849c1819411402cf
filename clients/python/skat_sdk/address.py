"""Where a server is, and how to talk to it safely (the Rust SDK's ``ServerAddress``).

======================================  ==============================================
address                                 means
======================================  ==============================================
``host:port``, ``http://host:port``     plain text
``https://host[:port]``                 TLS: the roots grpcio trusts (Mozilla's, or the
                                        file in ``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH``),
                                        or only the CA in ``ca_file`` / ``SKAT_CA_FILE``
                                        (a private CA)
======================================  ==============================================

A secret (a seat token, a bot token, a join code) is never sent in plain text to
anything but this machine (a loopback address or ``localhost``) unless plain text was
allowed explicitly (``insecure=True``, ``--insecure``, ``SKAT_INSECURE=1``):
:meth:`ServerAddress.check_secret` raises :class:`PlainTextRefused`, which says how to
fix it. ``https://`` is TLS or nothing: never a silent downgrade.

A connection is pinged while a call is open on it (``keepalive_ms``: every 15 s by
default, ``SKAT_KEEPALIVE_SECS`` sets it, ``0`` turns it off; 10 s to answer): a server
whose machine vanished without closing the connection is noticed within 25 s and the seat
reconnects, instead of waiting on a stream that will never speak again while its clock
runs out. The Rust and TypeScript SDKs do the same.

A server that wants mutual TLS (``skat serve --tls-client-ca``) gets this client's
certificate and key from ``client_cert``/``client_key`` (``SKAT_CLIENT_CERT``,
``SKAT_CLIENT_KEY``).
"""

import ipaddress
import os
from typing import Optional, Union

import grpc


class PlainTextRefused(ValueError):
    """A secret would have gone in plain text to a server that is not this machine."""

    def __init__(self, what: str, url: str):
        super().__init__(
            f"refusing to send the {what} in plain text to {url}, which is not this machine: "
            "use https:// (with ca_file= / --ca-file / SKAT_CA_FILE for a private CA), or allow "
            "plain text with insecure=True (--insecure, SKAT_INSECURE=1) on a network you trust"
        )
        self.what, self.url = what, url


def _keepalive_from_env() -> int:
    """The ping interval (ms) from ``SKAT_KEEPALIVE_SECS``, else 15 s."""
    try:
        secs = int(os.environ.get("SKAT_KEEPALIVE_SECS", "").strip())
    except ValueError:
        return 15_000
    return secs * 1000 if secs >= 0 else 15_000


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


class ServerAddress:
    """A server and how to reach it (see the module's docstring).

    ``ca_file``: a PEM file with the CA that signed the server's certificate (default:
    ``SKAT_CA_FILE``). ``insecure``: secrets may travel in plain text beyond this machine
    (default: ``SKAT_INSECURE``). ``client_cert``, ``client_key``: PEM files for a server
    that wants mutual TLS (default: ``SKAT_CLIENT_CERT``, ``SKAT_CLIENT_KEY``).
    ``keepalive_ms``: ping interval while a call is open, 0 for none (default:
    ``SKAT_KEEPALIVE_SECS``, else 15 s); ``keepalive_timeout_ms``: time to answer (10 s).
    """

    def __init__(
        self,
        address: str,
        ca_file: Optional[str] = None,
        insecure: Optional[bool] = None,
        client_cert: Optional[str] = None,
        client_key: Optional[str] = None,
        keepalive_ms: Optional[int] = None,
        keepalive_timeout_ms: int = 10_000,
    ):
        address = address.strip().rstrip("/")
        self.url = address if "://" in address else f"http://{address}"
        scheme, rest = self.url.split("://", 1)
        if scheme not in ("http", "https", "unix"):
            raise ValueError(
                f"{address}: a server address is host:port, http://host:port, https://host[:port] or unix:///path"
            )
        self.tls = scheme == "https"
        # A Unix socket (a hosted bot's sandbox: docs/hosted-bots.md): gRPC's own target.
        self.unix = scheme == "unix"
        host_port = self.url if self.unix else rest.split("/", 1)[0]
        # gRPC's target: host:port, with the TLS port by default.
        if self.tls and not _has_port(host_port):
            host_port = f"{host_port}:443"
        self.target = host_port
        self.ca_file = ca_file if ca_file is not None else (os.environ.get("SKAT_CA_FILE") or None)
        self.insecure = insecure if insecure is not None else _env_flag("SKAT_INSECURE")
        self.client_cert = client_cert or os.environ.get("SKAT_CLIENT_CERT") or None
        self.client_key = client_key or os.environ.get("SKAT_CLIENT_KEY") or None
        self.keepalive_ms = keepalive_ms if keepalive_ms is not None else _keepalive_from_env()
        self.keepalive_timeout_ms = keepalive_timeout_ms

    def __repr__(self) -> str:
        return f"ServerAddress({self.url!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ServerAddress) and (self.url, self.ca_file, self.insecure) == (
            other.url,
            other.ca_file,
            other.insecure,
        )

    def __hash__(self) -> int:
        return hash(self.url)

    @property
    def host(self) -> str:
        host = self.target
        if host.startswith("["):
            return host[1:].split("]", 1)[0]
        return host.rsplit(":", 1)[0] if _has_port(host) else host

    @property
    def is_loopback(self) -> bool:
        """Whether the server is this machine (a loopback address or ``localhost``)."""
        if self.unix:
            return True
        host = self.host
        if host.lower() == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    def check_secret(self, what: str) -> None:
        """Raises :class:`PlainTextRefused` if ``what`` (a secret) would travel in plain
        text beyond this machine without ``insecure``."""
        if not (self.tls or self.is_loopback or self.insecure):
            raise PlainTextRefused(what, self.url)

    def at(self, address: str) -> "ServerAddress":
        """Another server with the same TLS settings: ``address`` as the server named it
        (a redirect to the replica that owns a table), with this one's scheme when it has
        none."""
        if "://" not in address:
            address = f"{'https' if self.tls else 'http'}://{address}"
        return ServerAddress(
            address,
            self.ca_file,
            self.insecure,
            self.client_cert,
            self.client_key,
            self.keepalive_ms,
            self.keepalive_timeout_ms,
        )

    def channel(self, group: Optional[int] = None) -> grpc.Channel:
        """A gRPC channel: TLS for ``https://`` (never plain text instead). gRPC shares one
        connection among the channels to an address with the same options; ``group``
        names one of several such connections (a lobby puts at most 64 seats on one)."""
        options = [] if group is None else [("skat.connection", group)]
        if self.keepalive_ms > 0:
            options += [
                ("grpc.keepalive_time_ms", self.keepalive_ms),
                ("grpc.keepalive_timeout_ms", self.keepalive_timeout_ms),
                # Any ping: gRPC's core sends one ping at a time, and a flow-control
                # (BDP) ping unanswered holds the keepalive back for its own timeout,
                # a minute by default (measured: the frozen connection given up after
                # 60 s instead of 2).
                ("grpc.http2.ping_timeout_ms", self.keepalive_timeout_ms),
                # gRPC's core stops pinging after two pings without a data frame sent: a
                # seat waiting on its stream sends none for as long as the others think.
                ("grpc.http2.max_pings_without_data", 0),
            ]
        if self.unix:
            # gRPC's C core names a socket's path as the HTTP/2 authority, which the
            # server's HTTP/2 stack refuses as malformed: name the host instead.
            return grpc.insecure_channel(self.target, options=[("grpc.default_authority", "localhost")] + options)
        if not self.tls:
            return grpc.insecure_channel(self.target, options=options)
        roots = _read(self.ca_file) if self.ca_file else None
        cert = _read(self.client_cert) if self.client_cert and self.client_key else None
        key = _read(self.client_key) if cert else None
        credentials = grpc.ssl_channel_credentials(root_certificates=roots, private_key=key, certificate_chain=cert)
        return grpc.secure_channel(self.target, credentials, options=options)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e}") from e


def _has_port(host_port: str) -> bool:
    if host_port.startswith("["):
        return "]:" in host_port
    return host_port.count(":") == 1


def server_address(server: Union[str, ServerAddress]) -> ServerAddress:
    """``server`` as a :class:`ServerAddress` (a string takes its TLS settings from the
    environment)."""
    return server if isinstance(server, ServerAddress) else ServerAddress(server)


def target(server: Union[str, ServerAddress]) -> str:
    """A gRPC target (``host:port``) from a server address."""
    return server_address(server).target
