#!/usr/bin/env bash
# Plays one deal with a bot's image exactly as a hosted tournament would run it
# (docs/hosted-bots.md, "Test it as the runner runs it"): a server of its own on this
# machine with the runner in it (podman), the archive submitted and activated, a table of
# the operator's seating the bot and two random bots, then the bot's sandbox as the
# author reads it (how it ended, its output). Everything is removed afterwards.
#
#   examples/bots/try-hosted.sh ARCHIVE [COMMAND]      (ARCHIVE: podman save --format oci-archive)
#
# Needs podman (and runc on cgroups v1 hosts) and the `skat` binary (SKAT_BIN, or on PATH).
set -euo pipefail
archive=${1:?usage: try-hosted.sh ARCHIVE [COMMAND]}
command=${2:-}
skat=${SKAT_BIN:-skat}
[ -f "$archive" ] || { echo "$archive: no such file" >&2; exit 2; }
work=$(mktemp -d /tmp/skat-try.XXXXXX)
pid=""
finish() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap finish EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/runner-token"
export SKAT_SERVER="http://127.0.0.1:$port" SKAT_ADMIN_TOKEN
SKAT_ADMIN_TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
"$skat" serve --addr "127.0.0.1:$port" --metrics-addr off --web-addr off --data-dir "$work/data" \
  --hosting-runner-token-file "$work/runner-token" --runner podman --runner-name "try-$port" \
  --action-timeout 10s >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do "$skat" table list >/dev/null 2>&1 && break; sleep 0.1; done
token=$("$skat" admin register-bot --name mybot | awk '/^bot token/{print $3}')
[ -n "$token" ] || { cat "$work/server.log" >&2; exit 1; }
echo "submitting $archive"
"$skat" bot submit --bot-token "$token" --archive "$archive" --command "$command" --activate | sed 's/^/  /'
table=""
for _ in $(seq 50); do # the runner's feed follows the newly hosted account
  table=$("$skat" table create --deals 1 --bots mybot --name try --admin-token "$SKAT_ADMIN_TOKEN" 2>/dev/null | awk '/^table/{print $2}') && [ -n "$table" ] && break
  sleep 0.2
done
[ -n "$table" ] || { echo "the bot could not be seated" >&2; exit 1; }
for _ in 1 2; do "$skat" bot --strategy random --table "$table" >/dev/null 2>&1 & done
echo "playing one deal at table $table"
for _ in $(seq 300); do
  "$skat" table list --filter all | grep -F "$table" | grep -q finished && break
  sleep 1
done
for _ in $(seq 30); do "$skat" admin sandboxes --running | grep -q "no sandboxes running" && break; sleep 1; done
"$skat" table records "$table" | grep -q " w TI\." && echo "your bot's seat forfeited on its clock (see its output)"
"$skat" table list --filter all | grep -F "$table" | sed 's/^/  /'
sandbox=$("$skat" bot logs --bot-token "$token" | awk 'NR==1{print $1}')
echo "its sandbox:"
"$skat" bot logs --bot-token "$token" --sandbox "$sandbox" 2>&1 | sed 's/^/  /'
"$skat" bot logs --bot-token "$token" | grep -q "exited with status 0"
