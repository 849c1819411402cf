"""End to end: the real `skat serve`, the Python bot and two Rust bots play a whole list."""

import json
import os
import pathlib
import socket
import subprocess
import threading
import time

import grpc
import pytest

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from skat_bot import errors, play
from skat_bot.cards import Card

REPO = pathlib.Path(__file__).resolve().parents[3]
SKAT = os.environ.get("SKAT_BIN", str(REPO / "target" / "debug" / "skat"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def server():
    port = free_port()
    proc = subprocess.Popen(
        [SKAT, "serve", "--addr", f"127.0.0.1:{port}", "--metrics-addr", "off", "--action-timeout", "20s", "--database", "memory"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    addr = f"127.0.0.1:{port}"
    channel = grpc.insecure_channel(addr)
    grpc.channel_ready_future(channel).result(timeout=30)
    yield addr, rpc.SkatServiceStub(channel)
    proc.terminate()
    proc.wait(timeout=10)


def test_both_address_forms_name_the_same_server():
    from skat_bot.client import target

    assert target("127.0.0.1:50051") == "127.0.0.1:50051"
    assert target("http://127.0.0.1:50051") == "127.0.0.1:50051"
    assert target(" http://localhost:1/ ") == "localhost:1"


def test_cards_match_the_proto_numbering():
    assert str(Card(pb.CARD_D7)) == "D7"
    assert str(Card(pb.CARD_CJ)) == "CJ"
    assert str(Card(pb.CARD_HT)) == "HT"
    assert Card(pb.CARD_SA).points == 11


def test_python_bot_plays_a_whole_list_with_two_rust_bots(server):
    addr, stub = server
    table = stub.CreateTable(pb.CreateTableRequest(name="python e2e", seats=3, deals=36, seed=5)).table_id
    result = {}

    def python_seat():
        result["standings"] = play(addr, table, name="python", seat=0, seed=3)

    t = threading.Thread(target=python_seat)
    t.start()
    time.sleep(0.3)
    rust = [
        subprocess.Popen([SKAT, "bot", "--strategy", s, "--server", f"http://{addr}", "--table", table, "--seat", str(i)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for i, s in ((1, "heuristic"), (2, "random"))
    ]
    t.join(timeout=300)
    assert not t.is_alive(), "the list did not finish"
    for p in rust:
        assert p.wait(timeout=60) == 0
    standings = result["standings"]
    assert [s.name for s in standings] == ["python", "heuristic", "random"]

    view = stub.GetTable(pb.GetTableRequest(table_id=table)).table
    assert view.status == pb.TABLE_STATUS_FINISHED
    assert view.deals_played == 36
    assert [s.seeger_fabian for s in view.standings] == [s.seeger_fabian for s in standings]

    # The Python seat answered every turn in time: no forfeit anywhere.
    records = stub.GetRecords(pb.GetRecordsRequest(table_id=table, format=pb.RECORD_FORMAT_JSON)).records
    assert len(records) == 36
    for r in records:
        outcome = json.loads(r)["outcome"]
        assert outcome["kind"] != "penalty"
        assert outcome.get("end", {}).get("end") != "forfeit"
    # The Python bot declared games and played cards.
    iss = stub.GetRecords(pb.GetRecordsRequest(table_id=table)).records
    assert all(rec.startswith("(;GM[Skat]") for rec in iss)
    assert sum(s.declared for s in standings) > 0


def test_refusals_carry_reasons_the_client_exposes(server):
    addr, stub = server
    table = stub.CreateTable(pb.CreateTableRequest(seats=3, deals=1, seed=9)).table_id
    tokens = {}
    for name in ("a", "b", "c"):
        r = stub.JoinTable(pb.JoinTableRequest(table_id=table, name=name))
        tokens[r.seat] = r.token
    view = stub.GetTable(pb.GetTableRequest(table_id=table)).table
    mover = view.deal.seat_to_move
    other = (mover + 1) % 3
    md = lambda seat: [("authorization", "Bearer " + tokens[seat])]  # noqa: E731

    cases = [
        (lambda: stub.Bid(pb.BidRequest(table_id=table, call=pb.BID_CALL_PASS), metadata=md(other)),
         grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
        (lambda: stub.Bid(pb.BidRequest(table_id=table, call=pb.BID_CALL_PASS, expected_seq=view.seq - 1), metadata=md(mover)),
         grpc.StatusCode.ABORTED, "STALE_SEQ"),
        (lambda: stub.Bid(pb.BidRequest(table_id=table, call=pb.BID_CALL_SAY, value=19), metadata=md(mover)),
         grpc.StatusCode.INVALID_ARGUMENT, "INVALID_BID"),
        (lambda: stub.GetTable(pb.GetTableRequest(table_id="nope")),
         grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND"),
        (lambda: stub.JoinTable(pb.JoinTableRequest(table_id=table)),
         grpc.StatusCode.RESOURCE_EXHAUSTED, "TABLE_FULL"),
    ]
    for call, code, reason in cases:
        try:
            call()
        except grpc.RpcError as e:
            assert e.code() == code, (reason, e)
            assert errors.reason(e) == reason
            assert errors.reason_value(e) == pb.ErrorReason.Value("ERROR_REASON_" + reason)
        else:
            raise AssertionError(f"{reason} expected")
    try:
        stub.Bid(pb.BidRequest(table_id=table, call=pb.BID_CALL_PASS), metadata=md(other))
    except grpc.RpcError as e:
        assert errors.metadata(e)["to_move"] == "middlehand"
