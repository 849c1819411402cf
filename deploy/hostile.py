"""A hosted bot that attacks instead of playing (deploy/test-hosted.sh): from inside its
sandbox, through its door, it tries what a stranger's code would. Prints one JSON line.

    python3 -c "$(cat hostile.py)" VICTIM OTHER_TABLE    (as a version's command)
"""
import json, os, sys, time  # noqa: E401
import grpc
from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

victim, other = sys.argv[1], sys.argv[2]
server, table = os.environ["SKAT_SERVER"], os.environ["SKAT_TABLE"]
auth = (("authorization", "Bearer " + os.environ["SKAT_SEAT_TOKEN"]),)
opts = [("grpc.default_authority", "localhost"), ("grpc.use_local_subchannel_pool", 1)]
stub = rpc.SkatServiceStub(grpc.insecure_channel(server, options=opts))
got = {}


def attempt(name, call):
    try:
        call()
        got[name] = "OK"
    except grpc.RpcError as e:
        got[name] = e.code().name


attempt("register", lambda: stub.RegisterBot(pb.RegisterBotRequest(name="sock-puppet"), timeout=5))
for who, md in (("anonymous", ()), ("with-token", auth)):
    attempt("create-" + who, lambda: stub.CreateTable(
        pb.CreateTableRequest(seats=3, deals=1, name="from-inside", bots=[victim]), metadata=md, timeout=5))
    attempt("join-" + who, lambda: stub.JoinTable(
        pb.JoinTableRequest(table_id=other, name="intruder"), metadata=md, timeout=5))
attempt("list", lambda: stub.ListTables(pb.ListTablesRequest(), timeout=5))
attempt("other-table", lambda: stub.GetTable(pb.GetTableRequest(table_id=other), metadata=auth, timeout=5))
attempt("own-table", lambda: stub.GetTable(pb.GetTableRequest(table_id=table), metadata=auth, timeout=5))
# A flood in batches of a hundred calls in flight at once: at a crowded core's share, calls
# one after another came no faster than the door's rate (a CI run: 220 in 2 s, none refused).
ok = limited = 0
began = time.time()
while ok + limited < 800 or (limited == 0 and time.time() - began < 30):
    batch = [stub.GetTable.future(pb.GetTableRequest(table_id=table), metadata=auth, timeout=10) for _ in range(100)]
    for call in batch:
        try:
            call.result()
            ok += 1
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            limited += 1
got["flood"] = {"ok": ok, "limited": limited, "seconds": round(time.time() - began, 2)}
time.sleep(2.5)  # the bucket refills
# Sixty connections at once (each channel its own), each with a call: the door holds four.
channels = [grpc.insecure_channel(server, options=opts) for _ in range(60)]
calls = [rpc.SkatServiceStub(c).GetTable.future(pb.GetTableRequest(table_id=table), metadata=auth, timeout=3)
         for c in channels]
connected = 0
for call in calls:
    try:
        call.result()
        connected += 1
    except grpc.RpcError:
        pass
got["connections"] = connected
print(json.dumps(got), flush=True)
