#!/usr/bin/env bash
# Hosted bots' figures for docs/BENCHMARKS.md, all in one run on this machine:
#   1. sandbox start: `podman run` of a sandbox (every layer) until it runs, warm image;
#      cold: `podman load` of the archive first;
#   2. memory per idle sandbox (a bot waiting for its turn);
#   3. the per-decision overhead of a hosted bot (the Unix socket, the sandbox) against
#      the same bot on the host over TCP loopback: random bots, which decide at once;
#   4. pimc-fast (release) hosted at one CPU: CPU per decision and decision time;
#   5. a ramp: tables of three hosted pimc-fast seats at 0.1 CPU each, sandboxes on one
#      core and the server on the other, 3, 6, 12, 18, 24 seats at once, under a clock of
#      2 s per action: decision times and forfeits at each step (how many seats the
#      node holds).
#
#   deploy/bench-hosted.sh      (as root with podman and runc; release builds)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
skat="$root/target/release/skat"
work=$(mktemp -d /tmp/skat-bench-hosted.XXXXXX)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  for c in $(podman ps -a --filter label=skat.bench=1 --format '{{.Names}}'); do podman rm -f "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && cargo build --quiet --release -p skat-cli)
"$root/examples/bots/image.sh" rust "$work/rust.tar" >/dev/null
"$root/examples/bots/image.sh" skat "$work/skat.tar" >/dev/null
q() { python3 -c 'import sys; v=sorted(float(x) for x in sys.argv[2:]); p=float(sys.argv[1]); print(round(v[min(len(v)-1,int(p*len(v)))],1))' "$@"; }
ms() { date +%s%N; }
layers=(--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --network none --read-only --read-only-tmpfs=false
  --tmpfs /tmp:rw,size=16m --cpus 1 --memory 512m --memory-swap 512m --pids-limit 64 --cap-drop ALL
  --security-opt no-new-privileges --user 65534:65534 --label skat.bench=1)

echo "1. sandbox start"
warm=()
for i in $(seq 20); do
  t0=$(ms); podman "${layers[@]:0:2}" run -d --name "bench-$i" "${layers[@]:2}" --entrypoint '["/app/bot"]' localhost/skat-example-bot-rust:latest >/dev/null; t1=$(ms)
  warm+=($(( (t1 - t0) / 1000000 )))
  podman rm -f "bench-$i" >/dev/null
done
cold=()
for i in $(seq 5); do
  podman rmi -f localhost/skat-example-bot-rust:latest >/dev/null 2>&1 || true
  t0=$(ms); podman load -q -i "$work/rust.tar" >/dev/null
  podman tag "$(podman images -q | head -1)" localhost/skat-example-bot-rust:latest
  podman "${layers[@]:0:2}" run -d --name "cold-$i" "${layers[@]:2}" --entrypoint '["/app/bot"]' localhost/skat-example-bot-rust:latest >/dev/null; t1=$(ms)
  cold+=($(( (t1 - t0) / 1000000 )))
  podman rm -f "cold-$i" >/dev/null
done
echo "  warm: p50 $(q 0.5 "${warm[@]}") ms, p99 $(q 0.99 "${warm[@]}") ms (20 starts)"
echo "  cold (load a 3 MiB archive, then start): p50 $(q 0.5 "${cold[@]}") ms, p99 $(q 0.99 "${cold[@]}") ms (5 starts)"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export SKAT_SERVER="http://127.0.0.1:$port" SKAT_ADMIN_TOKEN=bench-admin
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/runner-token"
"$skat" serve --addr "127.0.0.1:$port" --metrics-addr off --web-addr off --data-dir "$work/data" --admin-token bench-admin \
  --unix-socket "$work/skat.sock" --hosting-runner-token-file "$work/runner-token" --runner podman --runner-dir "$work/runner" \
  --runner-sandbox-cpuset "$(( $(nproc) - 1 ))" --hosting-cpu-millis 1000 --account-max-tables 32 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do "$skat" table list >/dev/null 2>&1 && break; sleep 0.1; done

echo "2. memory per idle sandbox"
seats=$("$skat" table create --deals 1 --take-seats --action-timeout 600s)
table=$(awk '/^table/{print $2}' <<<"$seats"); tok=$(awk '/seat 1 token/{print $4}' <<<"$seats")
for i in $(seq 10); do
  podman "${layers[@]:0:2}" run -d --name "idle-$i" "${layers[@]:2}" -v "$work/skat.sock:/run/skat/grpc.sock" \
    -e SKAT_SERVER=unix:///run/skat/grpc.sock -e SKAT_TABLE="$table" -e SKAT_SEAT_TOKEN="$tok" \
    --entrypoint '["/app/bot"]' localhost/skat-example-bot-rust:latest >/dev/null
done
sleep 5
# Each sandbox's own cgroup (MemAvailable moves with the page cache more than with them).
total=0
for i in $(seq 10); do
  cg=$(podman inspect --format '{{.State.CgroupPath}}' "idle-$i")
  total=$(( total + $(cat "/sys/fs/cgroup/memory$cg/memory.usage_in_bytes" 2>/dev/null || cat "/sys/fs/cgroup$cg/memory.current") ))
done
echo "  $(( total / 10 / 1024 )) KiB per idle sandbox (10 Rust bots waiting for their turn, their cgroups), plus conmon: $(ps -o rss= -C conmon | awk '{s+=$1; n++} END {print int(s/n)}') KiB each"
for i in $(seq 10); do podman rm -f --time 1 "idle-$i" >/dev/null; done

python3 -m venv "$work/venv" && "$work/venv/bin/pip" install --quiet --disable-pip-version-check grpcio grpcio-tools
"$work/venv/bin/python" -m grpc_tools.protoc -I "$root/proto" --python_out="$work" --grpc_python_out="$work" "$root/proto/skat/v1/skat.proto"
times() { PYTHONPATH="$work" "$work/venv/bin/python" "$root/deploy/decision_times.py" "127.0.0.1:$port" "$1" "$2"; }
wait_table() { for _ in $(seq 600); do "$skat" table list --filter finished --limit 500 | grep -qF "$1" && return 0; sleep 1; done; return 1; }
token_of() { "$skat" admin register-bot --name "$1" | awk '/^bot token/{print $3}'; }

echo "3. per-decision overhead: a random bot hosted, and on the host"
hosted_random=$(token_of hosted-random)
"$skat" bot submit --bot-token "$hosted_random" --archive "$work/skat.tar" --command "/app/bot bot --strategy random" --activate >/dev/null
sleep 3
t=$("$skat" table create --deals 8 --bots hosted-random | awk '/^table/{print $2}')
for _ in 1 2; do "$skat" bot --strategy random --table "$t" >/dev/null 2>&1 & done
wait_table "$t"; echo "  hosted: $(times "$t" hosted-random)"
t=$("$skat" table create --deals 8 | awk '/^table/{print $2}')
"$skat" bot --strategy random --table "$t" --name host-random >/dev/null 2>&1 &
for _ in 1 2; do "$skat" bot --strategy random --table "$t" >/dev/null 2>&1 & done
wait_table "$t"; echo "  host:   $(times "$t" host-random)"

echo "4. pimc-fast hosted at one CPU"
pimc=$(token_of hosted-pimc)
"$skat" bot submit --bot-token "$pimc" --archive "$work/skat.tar" --command "/app/bot bot --strategy pimc-fast" --activate >/dev/null
sleep 3
t=$("$skat" table create --deals 6 --bots hosted-pimc | awk '/^table/{print $2}')
for _ in 1 2; do "$skat" bot --strategy random --table "$t" >/dev/null 2>&1 & done
wait_table "$t"
d=$(times "$t" hosted-pimc)
sleep 12
cpu=$("$skat" admin sandboxes | grep ' hosted-pimc at ' | head -1 | grep -oE '[0-9.]+ CPU s' | grep -oE '[0-9.]+')
n=$(grep -oE 'n=[0-9]+' <<<"$d" | cut -d= -f2)
echo "  decisions: $d; $cpu CPU s in the sandbox over the list"
python3 - "$cpu" "$d" <<'PY'
import sys
cpu = float(sys.argv[1]); d = sys.argv[2]
n = int(d.split("n=")[1].split()[0]); p50 = float(d.split("p50=")[1].split()[0])
# The first deal's decisions are not in n (the sandbox may start late): count them at the same rate.
per = cpu * 1000 / (n * 6 / 5)
print(f"  about {per:.0f} CPU ms per decision (p50 decision {p50:.0f} ms at one CPU)")
PY

echo "5. a ramp: hosted pimc-fast seats at 0.1 CPU each on one core, 2 s per action"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
"$skat" serve --addr "127.0.0.1:$port" --metrics-addr off --web-addr off --data-dir "$work/data" --admin-token bench-admin \
  --unix-socket "$work/skat.sock" --hosting-runner-token-file "$work/runner-token" --runner podman --runner-dir "$work/runner" \
  --runner-sandbox-cpuset "$(( $(nproc) - 1 ))" --hosting-cpu-millis 100 --hosting-memory-mib 128 --account-max-tables 32 \
  --action-timeout 2s >>"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do "$skat" table list >/dev/null 2>&1 && break; sleep 0.1; done
for b in ramp-a ramp-b ramp-c; do
  tok=$(token_of "$b")
  "$skat" bot submit --bot-token "$tok" --archive "$work/skat.tar" --command "/app/bot bot --strategy pimc-fast" --activate >/dev/null
done
sleep 3
for n in 1 2 4 6 8; do
  tables=()
  for _ in $(seq "$n"); do tables+=("$("$skat" table create --deals 4 --bots ramp-a,ramp-b,ramp-c | awk '/^table/{print $2}')"); done
  for t in "${tables[@]}"; do wait_table "$t"; done
  rows=()
  for t in "${tables[@]}"; do for b in ramp-a ramp-b ramp-c; do rows+=("$(times "$t" "$b")"); done; done
  python3 - "$n" "${rows[@]}" <<'PY'
import sys
n = int(sys.argv[1]); rows = sys.argv[2:]
field = lambda r, k: float(r.split(k + "=")[1].split()[0])
p50 = sorted(field(r, "p50") for r in rows)[len(rows) // 2]
p99 = max(field(r, "p99") for r in rows)
forfeits = sum(int(field(r, "forfeits")) for r in rows)
print(f"  {3 * n:2d} seats at once: decision p50 {p50:.0f} ms, worst seat's p99 {p99:.0f} ms, forfeits {forfeits}")
PY
  sleep 12
done
