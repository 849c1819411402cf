#!/usr/bin/env python3
"""Tournament benchmark: lobby seating latency and tournament throughput over loopback,
compared in the same run with `skat arena` playing the same number of tables.

    cargo build --release -p skat-cli
    .tools/venv/bin/python scripts/bench_tournament.py --entrants 20 --deals 2 --parallel 100

Starts `skat serve` (SQLite in a temporary directory), registers the entrants, starts one
`skat bot --bot-token` lobby process per entrant (heuristic and random alternating),
creates a tournament of every triple in duplicate and measures: seating latency (from
the CreateTournament answer to each table's first deal being dealt, as a spectator
stream shows it), tables in play at once, and deals per second until the last table
finishes. `--parallel N` gives every account the quota that lets N tables play at once
(N x 3 seats / entrants). Then `skat arena --server --parallel N` on the same server
plays the same number of tables.
"""

import argparse
import os
import pathlib
import socket
import statistics
import subprocess
import tempfile
import threading
import time

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

REPO = pathlib.Path(__file__).resolve().parents[1]
SKAT = os.environ.get("SKAT_BIN", str(REPO / "target" / "release" / "skat"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--entrants", type=int, default=8)
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--parallel", type=int, default=0, help="tables at once (0: the default quota of 8 per account)")
    args = ap.parse_args()
    quota = max(1, -(-args.parallel * 3 // args.entrants)) if args.parallel else 8
    port = free_port()
    addr = f"127.0.0.1:{port}"
    data = tempfile.mkdtemp(prefix="skat-bench-tournament-")
    server = subprocess.Popen([SKAT, "serve", "--addr", addr, "--metrics-addr", "off", "--data-dir", data,
                               "--admin-token", "op", "--max-tables", "20000", "--max-tables-per-client", "100000",
                               "--account-max-tables", str(quota), "--account-max-lobbies", "8",
                               "--max-streams-per-client", "100000", "--max-connections-per-client", "100000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bots = []
    try:
        channel = grpc.insecure_channel(addr)
        grpc.channel_ready_future(channel).result(timeout=30)
        stub = rpc.SkatServiceStub(channel)
        names = [f"bot{i:02}" for i in range(args.entrants)]
        for i, n in enumerate(names):
            token = stub.RegisterBot(pb.RegisterBotRequest(name=n)).bot_token
            strategy = "heuristic" if i % 2 == 0 else "random"
            bots.append(subprocess.Popen([SKAT, "bot", "--strategy", strategy, "--server", addr, "--bot-token", token],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1.0)  # every lobby connected
        md = (("authorization", "Bearer op"),)
        started = time.time()
        created = stub.CreateTournament(pb.CreateTournamentRequest(
            name="bench", entrants=names, deals=args.deals, seed=1,
            time_control=pb.TimeControl(action_ms=30000, deal_ms=0)), metadata=md)
        answered = time.time()
        seen, latencies, in_play = set(), [], []
        lock = threading.Lock()

        def first_deal(table_id):
            for msg in stub.WatchTable(pb.WatchTableRequest(table_id=table_id, after_seq=0)):
                if msg.HasField("event") and msg.event.HasField("deal_started"):
                    with lock:
                        latencies.append(time.time() - answered)
                    return

        while True:
            t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=created.tournament_id)).tournament
            in_play.append(sum(1 for x in t.tables if x.status == "playing"))
            for table in t.tables:
                if table.table_id and table.table_id not in seen:
                    seen.add(table.table_id)
                    threading.Thread(target=first_deal, args=(table.table_id,), daemon=True).start()
            if t.finished:
                break
            time.sleep(0.5)  # GetTournament of 3,420 tables is not free: poll gently
        took = time.time() - started
        deals = created.tables * args.deals
        lat = sorted(latencies)
        print(f"tournament: {args.entrants} entrants, {created.tables} tables x {args.deals} deals = {deals} deals "
              f"in {took:.1f} s: {deals / took:.0f} deals/s; tables in play at once: max {max(in_play)}, "
              f"median {statistics.median(in_play):.0f} (quota {quota} per account)")
        first_wave = lat[: max(1, len(lat) // 10)]
        print(f"seating: CreateTournament answered in {1000 * (answered - started):.0f} ms; first deal dealt "
              f"{1000 * lat[0]:.0f} ms after it at the first table, p50 {1000 * statistics.median(first_wave):.0f} ms "
              f"over the first {len(first_wave)} tables (the others wait for the entrants' quota)")
        lists = created.tables // 3
        t0 = time.time()
        out = subprocess.run([SKAT, "arena", "--server", f"http://{addr}", "--bots", "heuristic,random,random",
                              "--deals", str(args.deals), "--lists", str(lists),
                              "--parallel", str(args.parallel or 2 * os.cpu_count())],
                             capture_output=True, text=True)
        took_arena = time.time() - t0
        print(f"arena on the same server: {lists * 3} tables x {args.deals} deals = {lists * 3 * args.deals} deals "
              f"in {took_arena:.1f} s: {lists * 3 * args.deals / took_arena:.0f} deals/s "
              f"({out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ''})")
    finally:
        for b in bots:
            b.kill()
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
