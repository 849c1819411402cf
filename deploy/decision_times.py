"""A seat's decision times at a finished table, from its events: for each event that
gave the seat the move, the time until the seat's own action (the server's clock on both
ends), from the second deal on (the first turn may come before the bot's sandbox is up).
Prints `n=N p50=MS p90=MS p99=MS max=MS forfeits=N` (forfeits: deals the seat lost on
its clock or by absence, from the second deal on).

    python decision_times.py SERVER TABLE SEAT_NAME [raw]   (skat/v1 stubs on PYTHONPATH)

With `raw`, every decision time is printed instead, one a line (to pool several tables).
"""
import sys

import grpc
from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

server, table, name = sys.argv[1:4]
raw = sys.argv[4:5] == ["raw"]
stub = rpc.SkatServiceStub(grpc.insecure_channel(server))
view = stub.GetTable(pb.GetTableRequest(table_id=table)).table
seat = next(s.seat for s in view.seat_info if s.name == name)
times, since, forfeits = [], None, 0
for msg in stub.WatchTable(pb.WatchTableRequest(table_id=table, after_seq=0)):
    if not msg.HasField("event"):
        continue
    ev = msg.event
    mine = ev.HasField("action_taken") and ev.action_taken.seat == seat and ev.action_taken.deal > 0
    if mine and ev.action_taken.action.kind == pb.ACTION_KIND_FORFEIT:
        forfeits += 1
    elif mine and since is not None:
        times.append(ev.time_unix_ms - since)
    since = ev.time_unix_ms if ev.HasField("seat_to_move") and ev.seat_to_move == seat else None
    if ev.HasField("match_ended"):
        break
times.sort()
if raw:
    print("\n".join(str(t) for t in times))
    sys.exit(0)
q = lambda p: times[min(len(times) - 1, int(p * len(times)))]
if times:
    print(f"n={len(times)} p50={q(0.5)} p90={q(0.9)} p99={q(0.99)} max={times[-1]} forfeits={forfeits}")
else:  # the seat never acted (a bot locked out): its forfeits only
    print(f"n=0 p50=- p90=- p99=- max=- forfeits={forfeits}")
