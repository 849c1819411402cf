#!/usr/bin/env bash
# Builds a reference bot as a container image for hosting (docs/hosted-bots.md) without
# pulling any base image: FROM scratch, with the program and every shared library `ldd`
# lists (for Python: this machine's interpreter, its standard library and the bot's
# packages), a non-root user, and saves it as an OCI archive for `skat bot submit`.
#
#   examples/bots/image.sh rust   OUT.tar     the Rust example bot (cargo build --release)
#   examples/bots/image.sh python OUT.tar     the Python example bot (grpcio in a venv)
#   examples/bots/image.sh skat   OUT.tar     the `skat` binary: `skat bot --strategy ...`
#
# Needs podman. Prints the image's name. SKAT_PROFILE=debug takes the debug builds (the
# test command's; a release build is what a competition wants).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kind=${1:?rust, python or skat}
out=${2:?the archive to write}
stage=$(mktemp -d /tmp/skat-image.XXXXXX)
trap 'rm -rf "$stage"' EXIT
rootfs="$stage/rootfs"
mkdir -p "$rootfs/etc" "$rootfs/tmp" "$rootfs/app" "$rootfs/run/skat"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
chmod 1777 "$rootfs/tmp"

libs_of() { # copy the loader and every library FILE... links into the image
  for f in "$@"; do
    { ldd "$f" 2>/dev/null || true; } | { grep -oE '/[^ ]+' || true; } | while read -r lib; do
      [ -e "$lib" ] || continue
      mkdir -p "$rootfs$(dirname "$lib")"
      [ -e "$rootfs$lib" ] || cp -L "$lib" "$rootfs$lib"
    done
  done
}

case $kind in
rust | skat)
  profile=${SKAT_PROFILE:-release}
  flag=$([ "$profile" = release ] && echo --release || true)
  if [ "$kind" = rust ]; then
    (cd "$root" && cargo build --quiet $flag -p skat-example-bot)
    bin="$root/target/$profile/skat-example-bot"
  else
    (cd "$root" && cargo build --quiet $flag -p skat-cli)
    bin="$root/target/$profile/skat"
  fi
  cp "$bin" "$rootfs/app/bot"
  strip "$rootfs/app/bot" 2>/dev/null || true
  libs_of "$bin"
  entry='["/app/bot"]'
  env=''
  ;;
python)
  # The system's interpreter (Debian's, with its standard library in /usr/lib), not a
  # pyenv shim: the image gets exactly the interpreter and library that belong together.
  py=$(readlink -f /usr/bin/python3)
  venv="$stage/venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check grpcio grpcio-tools grpcio-status
  mkdir -p "$rootfs/app/gen" "$rootfs/app/site"
  "$venv/bin/python" -m grpc_tools.protoc -I "$root/proto" --python_out="$rootfs/app/gen" \
    --grpc_python_out="$rootfs/app/gen" "$root/proto/skat/v1/skat.proto"
  site=$("$venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')
  cp -r "$site"/. "$rootfs/app/site/"
  # What only builds or installs: not the bot's.
  (cd "$rootfs/app/site" && rm -rf pip pip-* setuptools setuptools-* pkg_resources _distutils_hack distutils-precedence.pth grpc_tools grpcio_tools-*)
  ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  mkdir -p "$rootfs/usr/bin" "$rootfs/usr/lib"
  cp "$py" "$rootfs/usr/bin/python3"
  # The standard library without what a bot never needs (tests, tk, the installer).
  tar -C /usr/lib --exclude="python$ver/test" --exclude="python$ver/idlelib" --exclude="python$ver/tkinter" \
    --exclude="python$ver/ensurepip" --exclude='__pycache__' --exclude="python$ver/site-packages" \
    --exclude="python$ver/dist-packages" -cf - "python$ver" | tar -C "$rootfs/usr/lib" -xf -
  libs_of "$py" $(find "$rootfs/app/site" "$rootfs/usr/lib/python$ver/lib-dynload" -name '*.so*')
  cp "$here/python/skatbot.py" "$rootfs/app/skatbot.py"
  entry='["/usr/bin/python3", "/app/skatbot.py"]'
  env='ENV PYTHONPATH=/app/gen:/app/site PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1'
  ;;
*) echo "unknown kind: $kind (rust, python or skat)" >&2; exit 2 ;;
esac

cat >"$stage/Containerfile" <<EOF
FROM scratch
COPY rootfs/ /
$env
USER 65534:65534
ENTRYPOINT $entry
EOF
name="localhost/skat-example-bot-$kind:latest"
podman build --quiet -t "$name" -f "$stage/Containerfile" "$stage" >/dev/null
rm -f "$out"
podman save --quiet --format oci-archive -o "$out" "$name"
echo "$name"
