#!/usr/bin/env bash
# Builds a runnable container image locally, without pulling any base image: the release
# binary plus the shared libraries `ldd` lists, FROM scratch, with podman (no daemon).
#
#   deploy/build-local-image.sh [TAG]          (default localhost/skat-server:dev)
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-localhost/skat-server:dev}"

command -v podman >/dev/null || { echo "podman is needed: apt-get install -y podman runc" >&2; exit 1; }
cargo build --release --locked -p skat-cli
bin=target/release/skat

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/rootfs"
mkdir -p "$root/usr/local/bin" "$root/etc" "$root/tmp"
cp "$bin" "$root/usr/local/bin/skat"
strip "$root/usr/local/bin/skat" 2>/dev/null || true
# The dynamic loader and every library the binary links.
for lib in $(ldd "$bin" | grep -oE '/[^ ]+' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$root/etc/group"
chmod 1777 "$root/tmp"
# The system's CA roots: clients of the image (a managed PostgreSQL with sslmode=verify-full
# and a public CA) find them where rustls-native-certs looks.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
cp deploy/Containerfile.local "$stage/Containerfile"
podman build --quiet -t "$tag" -f "$stage/Containerfile" "$stage"
echo "built $tag"
