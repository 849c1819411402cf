"""Server addresses: ``127.0.0.1:50051`` and ``http://127.0.0.1:50051`` name the same
server (the Rust tools print the second form)."""


def target(server: str) -> str:
    """A gRPC target from a server address."""
    server = server.strip()
    for scheme in ("http://", "https://"):
        if server.startswith(scheme):
            return server[len(scheme):].rstrip("/")
    return server
