#!/usr/bin/env bash
# Two (or more) servers measured at the same time: what a durable deal costs against an
# in-memory one, with both under the same machine.
#
#   scripts/paired-capacity.sh [--tables N] [--soak 4m] [--warmup 2m] [--out DIR] JOURNAL[,VAR=VALUE] JOURNAL...
#   e.g. scripts/paired-capacity.sh --tables 1500 memory sqlite
#        scripts/paired-capacity.sh --tables 2000 --soak 25m --warmup 12m sqlite,BIN=target/glibc/release/skat sqlite
#
# On a virtual machine the CPU a deal costs moves by tens of percent from one run to the
# next (the same build, the same load: 3.3 and 5.4 ms in consecutive four-minute runs,
# docs/BENCHMARKS.md), which is the size of the difference being measured. So the servers
# run side by side, all on core 0, each loaded by its own `skat capacity` on core 1 with
# the same bots (500 ms mean think time, 12-deal lists), and every window's CPU per deal is
# compared with the other server's in the same window. A journal may carry environment
# variables for its server after a comma (a temporary probe build, GLIBC_TUNABLES...);
# `BIN=PATH` among them runs that server from another binary (a build without mimalloc:
# cargo build --release -p skat-cli --no-default-features --target-dir target/glibc), and
# `LOAD=--flag=value` passes a flag to that server's load (`LOAD=--streams=seat`: its bots
# watch on a WatchTable stream a seat instead of one WatchTables stream a connection).
# With a warm-up of 10 minutes or more each load also checks growth (`--check-growth`).
# Each server gets its own port pair (50151/50152, 50161/50162, ...) and data directory
# (removed at the end).
# Uses ./target/release/skat (cargo build --release -p skat-cli); prints each load's
# table of windows, then the ratio of every later server's CPU per deal to the first's,
# window by window, for the warm windows (from --warmup, 2 minutes).
set -euo pipefail

TABLES=1500
SOAK=4m
WARMUP=2m
OUT=$(mktemp -d /tmp/skat-paired.XXXXXX)
BIN=${SKAT_BIN:-./target/release/skat}
while [[ $# -gt 0 ]]; do
  case $1 in
    --tables) TABLES=$2; shift 2 ;;
    --soak) SOAK=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --out) OUT=$2; mkdir -p "$OUT"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[[ $# -ge 2 ]] || { echo "give at least two journals (memory, sqlite, postgres://...)" >&2; exit 2; }
[[ -x $BIN ]] || { echo "$BIN not found: cargo build --release -p skat-cli" >&2; exit 2; }

SERVERS=()
LOADARGS=()
# The servers stop with the script; their databases go, their logs stay.
cleanup() {
  for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$OUT"/data*
}
trap cleanup EXIT

case $WARMUP in
  *m) WARM_S=$((${WARMUP%m} * 60)) ;;
  *s) WARM_S=${WARMUP%s} ;;
  *) echo "--warmup takes minutes or seconds (2m, 90s)" >&2; exit 2 ;;
esac
GROWTH=(); [[ $WARM_S -ge 600 ]] && GROWTH=(--check-growth)

i=0
for spec in "$@"; do
  db=${spec%%,*}; vars=(); [[ $spec == *,* ]] && IFS=, read -ra vars <<< "${spec#*,}"
  bin=$BIN; envs=(); LOADARGS[i]=""
  for v in "${vars[@]}"; do
    case $v in
      BIN=*) bin=${v#BIN=} ;;
      LOAD=*) LOADARGS[i]+=" ${v#LOAD=}" ;;
      *) envs+=("$v") ;;
    esac
  done
  [[ -x $bin ]] || { echo "$bin not found" >&2; exit 2; }
  port=$((50151 + 10 * i))
  mkdir -p "$OUT/data$i"
  env "${envs[@]}" taskset -c 0 "$bin" serve --addr "127.0.0.1:$port" --metrics-addr "127.0.0.1:$((port + 1))" \
    --database "$db" --data-dir "$OUT/data$i" --max-tables 40000 --max-tables-per-client 100000 \
    --max-streams-per-client 300000 --max-connections-per-client 20000 --retention 10m --table-expiry 2m \
    --journal-gather 10ms > "$OUT/server$i.log" 2>&1 &
  SERVERS+=($!)
  i=$((i + 1))
done
sleep 3
LOADS=()
for ((j = 0; j < i; j++)); do
  port=$((50151 + 10 * j))
  taskset -c 1 "$BIN" capacity --server "http://127.0.0.1:$port" --metrics "127.0.0.1:$((port + 1))" \
    --tables "$TABLES" --soak "$SOAK" --window 60s --warmup "$WARMUP" --think exp:500ms --deals 12 "${GROWTH[@]}" \
    ${LOADARGS[j]} \
    > "$OUT/load$j.log" 2>&1 &
  LOADS+=($!)
done
wait "${LOADS[@]}"

j=0
for spec in "$@"; do echo "== $spec"; grep -E '^ +[0-9]+s |^soak' "$OUT/load$j.log" || cat "$OUT/load$j.log"; j=$((j + 1)); done
# The last column is the server's CPU per deal; windows from the warm-up on are warm.
echo "== CPU per deal against $1, window by window (warm windows)"
for ((j = 1; j < i; j++)); do
  paste <(awk -v w="$WARM_S" '$1 ~ /s$/ && $1 + 0 >= w {print $1, $NF}' "$OUT/load0.log") \
        <(awk -v w="$WARM_S" '$1 ~ /s$/ && $1 + 0 >= w {print $NF}' "$OUT/load$j.log") |
    awk -v name="${@:j+1:1}" '{printf "%s %6s  %s / %s ms = %.2f\n", name, $1, $3, $2, $3 / $2}'
done
echo "(logs in $OUT)"
