#!/usr/bin/env bash
# Builds the local image, runs it, and checks that it answers a gRPC health check as a
# non-root user and stops cleanly on SIGTERM. Used by scripts/test-all.
set -euo pipefail
cd "$(dirname "$0")/.."
buf="${BUF:-.tools/buf/node_modules/.bin/buf}"
tag=localhost/skat-server:test
name="skat-test-$$"

deploy/build-local-image.sh "$tag"
user=$(podman image inspect --format '{{.Config.User}}' "$tag")
[ "$user" = "65532:65532" ] || { echo "image user is '$user', expected 65532:65532" >&2; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
podman --runtime runc run -d --name "$name" --network host \
  --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --read-only --tmpfs /data:rw,mode=1777 \
  -e SKAT_ADDR="127.0.0.1:$port" -e SKAT_METRICS_ADDR=off -e SKAT_DRAIN=1s \
  "$tag" >/dev/null
cleanup() { podman rm -f "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT

status=""
for _ in $(seq 1 100); do
  status=$("$buf" curl --protocol grpc --http2-prior-knowledge \
    "http://127.0.0.1:$port/grpc.health.v1.Health/Check" -d '{}' 2>/dev/null | tr -d ' \n' || true)
  [ "$status" = '{"status":"SERVING"}' ] && break
  sleep 0.1
done
[ "$status" = '{"status":"SERVING"}' ] || { echo "no SERVING health answer: $status" >&2; podman logs "$name" >&2; exit 1; }
echo "container answers grpc.health.v1 Check: SERVING"

uid=$(podman top "$name" huser | tail -1 | tr -d ' ')
echo "server process runs as uid $uid"
[ "$uid" != "0" ] && [ "$uid" != "root" ] || { echo "the server runs as root" >&2; exit 1; }

podman stop --time 10 "$name" >/dev/null
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = "0" ] || { echo "exit code $code after SIGTERM" >&2; podman logs "$name" >&2; exit 1; }
echo "container stopped cleanly on SIGTERM"
