#!/usr/bin/env bash
# What one hostile account can do to another account's hosted bot on this machine
# (docs/BENCHMARKS.md, "Hosted bots"), for one build of `skat`: a victim bot that thinks
# 40 ms of CPU a decision (under one quota period, so that it feels who shares its core)
# plays a table of 8 deals against two random bots, alone, and then beside the hostile
# account's sandboxes doing one thing each time:
#
#   conns   five sandboxes open as many connections as their open-files limit lets
#           them (1,000 each) and hold them;
#   calls   three sandboxes call ListTables and GetTable as fast as they can;
#   output  three sandboxes write to stdout as fast as they can;
#   cpu     one sandbox spins three processes (every core it can reach).
#
# Prints, per case, the victim's decision times from the table's events (p50, p99,
# forfeits), and the CPU seconds podman's conmon processes spent meanwhile. Run it with
# the build before and the build after, on the same machine, one after the other:
#
#   deploy/bench-hostile.sh SKAT_BINARY [CASE...]      (as root with podman and runc)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
skat=${1:?the skat binary to measure}
shift
cases=("${@:-alone conns calls output cpu}")
read -r -a cases <<<"${cases[*]}"
work=$(mktemp -d /tmp/skat-bench-hostile.XXXXXX)
server_pid=""
stop_server() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  server_pid=""
  pkill -f "skat-bench-hostile-bot" 2>/dev/null || true
  for c in $(podman ps -a --filter label=skat.hosted=1 --format '{{.Names}}'); do podman rm -f "$c" >/dev/null 2>&1 || true; done
}
trap 'stop_server; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
"$root/examples/bots/image.sh" python "$work/python.tar" >/dev/null
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check grpcio grpcio-tools
"$work/venv/bin/python" -m grpc_tools.protoc -I "$root/proto" --python_out="$work" --grpc_python_out="$work" "$root/proto/skat/v1/skat.proto"
json_cmd() { python3 -c 'import json,sys; print(json.dumps(["/usr/bin/python3","-c",sys.argv[1]]))' "$1"; }
victim=$(json_cmd 'import runpy, time
g = runpy.run_path("/app/skatbot.py")
act = g["Bot"].act
def think(self, legal, seq):
    t = time.process_time()
    while time.process_time() - t < 0.04:
        pass
    return act(self, legal, seq)
g["Bot"].act = think
g["hosted"]()')
conns=$(json_cmd 'import os, time, grpc
from skat.v1 import skat_pb2 as pb, skat_pb2_grpc as rpc
held = []
for _ in range(1000):
    c = grpc.insecure_channel(os.environ["SKAT_SERVER"], options=[("grpc.default_authority", "localhost"), ("grpc.use_local_subchannel_pool", 1)])
    try:
        rpc.SkatServiceStub(c).GetTable(pb.GetTableRequest(table_id=os.environ["SKAT_TABLE"]), timeout=1)
    except grpc.RpcError:
        pass
    held.append(c)
print("holding", len(held), flush=True)
time.sleep(100000)')
calls=$(json_cmd 'import os, grpc
from skat.v1 import skat_pb2 as pb, skat_pb2_grpc as rpc
os.fork(); os.fork()
s = rpc.SkatServiceStub(grpc.insecure_channel(os.environ["SKAT_SERVER"], options=[("grpc.default_authority", "localhost")]))
while True:
    for call in (lambda: s.ListTables(pb.ListTablesRequest(limit=100)), lambda: s.GetTable(pb.GetTableRequest(table_id=os.environ["SKAT_TABLE"]))):
        try:
            call()
        except grpc.RpcError:
            pass')
output=$(json_cmd 'import os, sys
os.fork(); os.fork()
while True:
    sys.stdout.write("flood " * 100 + "\n")')
cpu=$(json_cmd 'import os
os.fork(); os.fork()
while True:
    pass')

start_server() {
  port=$(free_port)
  export SKAT_SERVER="http://127.0.0.1:$port" SKAT_ADMIN_TOKEN=bench-admin
  rm -rf "$work/data" "$work/runner"
  "$skat" serve --addr "127.0.0.1:$port" --metrics-addr off --web-addr off --data-dir "$work/data" --admin-token bench-admin \
    --unix-socket "$work/skat.sock" --hosting-runner-token-file "$work/runner-token" --runner podman --runner-dir "$work/runner" \
    --hosting-cpu-millis 1000 --hosting-memory-mib 256 --account-max-tables 8 --action-timeout 10s >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do "$skat" table list >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "the server did not start" >&2; exit 1
}
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/runner-token"
account() { # account NAME COMMAND: registered, submitted, active
  local t; t=$("$skat" admin register-bot --name "$1" | awk '/^bot token/{print $3}')
  "$skat" bot submit --bot-token "$t" --archive "$work/python.tar" --command "$2" --activate >/dev/null
}
table() { # table BOT DEALS: a table of the operator's seating BOT, two random bots beside it
  local t
  t=$("$skat" table create --deals "$2" --bots "$1" --admin-token bench-admin | awk '/^table/{print $2}')
  for _ in 1 2; do (exec -a skat-bench-hostile-bot "$skat" bot --strategy random --table "$t" >/dev/null 2>&1) & done
  echo "$t"
}
conmon_ticks() { local s=0; for p in $(pgrep -x conmon); do s=$(( s + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) )); done; echo "$s"; }

for case in "${cases[@]}"; do
  start_server
  account victim "$victim"
  sandboxes=0
  if [ "$case" != alone ]; then
    account hostile "${!case}"
    case $case in conns) sandboxes=5 ;; calls | output) sandboxes=3 ;; cpu) sandboxes=1 ;; esac
  fi
  sleep 3 # the feed follows the accounts
  for _ in $(seq "$sandboxes"); do table hostile 36 >/dev/null; done
  sleep 15 # the attack is in place
  before=$(conmon_ticks)
  t=$(table victim 8)
  for _ in $(seq 600); do "$skat" table list --filter finished --limit 500 | grep -qF "$t" && break; sleep 1; done
  after=$(conmon_ticks)
  d=$(PYTHONPATH="$work" "$work/venv/bin/python" "$root/deploy/decision_times.py" "127.0.0.1:$port" "$t" victim)
  echo "$case: $d, conmon $(( (after - before) / 100 )).$(( (after - before) % 100 )) CPU s while the victim played"
  stop_server
done
