"""A Skat bot in Python from the contract alone: stubs made by grpcio-tools from
proto/skat/v1/skat.proto (docs/writing-a-bot.md), no SDK. It joins with a join key (and
joins again with it, as a client that lost the answer would: the same seat), acts on its
snapshot and on every event that gives it a turn, drops its stream once and resumes with
after_seq, reads one refusal's reason, and prints the standings.

    python skatbot.py SERVER TABLE NAME [JOIN_KEY]      (stubs on PYTHONPATH)

Hosted (docs/hosted-bots.md): with SKAT_SEAT_TOKEN set, it plays that seat at SKAT_TABLE
on SKAT_SERVER (unix:///run/skat/grpc.sock in a sandbox; gRPC speaks Unix sockets).
"""
import os
import sys
import time
import uuid

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

# Reasons that mean the table moved on while we decided: wait for the next event. Any
# other refusal of an action is a bug in the bot.
WAITS = {"STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT"}


def reason(e: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refusal ("STALE_SEQ"), or "" (not the server's)."""
    status = rpc_status.from_call(e)
    for detail in status.details if status else []:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def is_turn(legal) -> bool:
    return bool(legal.cards or legal.discard_from or legal.contracts or legal.pick_up_skat
                or legal.hold or legal.min_bid or legal.may_pass)


class Bot:
    def __init__(self, stub, table, token):
        self.stub, self.table = stub, table
        self.auth = (("authorization", f"Bearer {token}"),)
        self.tested = False  # one refusal read on purpose

    def act(self, legal, seq: int):
        """The first legal choice (bid 18 or 20, then pass) with expected_seq = seq."""
        expected = seq
        if not self.tested:  # once, on purpose: a wrong expected_seq, refused with STALE_SEQ
            self.tested, expected = True, seq + 1000
        t, s = self.table, self.stub
        try:
            if legal.cards:
                s.PlayCard(pb.PlayCardRequest(table_id=t, card=legal.cards[0], expected_seq=expected), metadata=self.auth)
            elif len(legal.discard_from) >= 2:
                s.Discard(pb.DiscardRequest(table_id=t, cards=legal.discard_from[:2], expected_seq=expected), metadata=self.auth)
            elif legal.contracts:
                k = legal.contracts[0]
                s.Declare(pb.DeclareRequest(table_id=t, game=k.game, announcement=k.announcement, expected_seq=expected),
                          metadata=self.auth)
            elif legal.pick_up_skat:
                s.TakeSkat(pb.TakeSkatRequest(table_id=t, pick_up=True, expected_seq=expected), metadata=self.auth)
            elif legal.hold:
                s.Bid(pb.BidRequest(table_id=t, call=pb.BID_CALL_HOLD, expected_seq=expected), metadata=self.auth)
            elif 0 < legal.min_bid <= 20:
                s.Bid(pb.BidRequest(table_id=t, call=pb.BID_CALL_SAY, value=legal.min_bid, expected_seq=expected),
                      metadata=self.auth)
            else:
                s.Bid(pb.BidRequest(table_id=t, call=pb.BID_CALL_PASS, expected_seq=expected), metadata=self.auth)
        except grpc.RpcError as e:
            why = reason(e)  # branch on the reason, never on the message
            print(f"refused: {why} ({e.code().name})")
            if expected != seq and why == "STALE_SEQ":
                self.act(legal, seq)  # the deliberate one: now with the right seq
            elif why not in WAITS:
                sys.exit(f"a bug in the bot: {e.details()}")

    def watch(self, after: int, drop_after: int):
        """Reads the stream from `after` (0: a snapshot first); returns (ended, last seq)."""
        request = pb.WatchTableRequest(table_id=self.table)
        if after:
            request.after_seq = after
        last = after
        stream = self.stub.WatchTable(request, metadata=self.auth)
        try:
            for n, msg in enumerate(stream, start=1):
                if msg.HasField("snapshot"):  # act on it: it may be our turn already
                    last = msg.snapshot.seq
                    if msg.snapshot.status in (pb.TABLE_STATUS_FINISHED, pb.TABLE_STATUS_ABANDONED):
                        return True, last  # over before we came: nothing to play
                    if msg.snapshot.HasField("deal") and is_turn(msg.snapshot.deal.legal):
                        self.act(msg.snapshot.deal.legal, last)
                    continue
                ev = msg.event
                last = ev.seq
                if ev.HasField("match_ended"):
                    for s in ev.match_ended.standings:
                        print(f"seat {s.seat} {s.name:<12} seeger-fabian {s.seeger_fabian:5d}")
                    return True, last
                if ev.HasField("legal") and is_turn(ev.legal):
                    if ev.deadline_unix_ms:  # the server's clock on both sides: no skew
                        print(f"turn at seq {ev.seq}, {ev.deadline_unix_ms - ev.time_unix_ms} ms to act")
                    self.act(ev.legal, ev.seq)
                if n == drop_after:
                    print(f"dropping the stream at seq {ev.seq}")
                    stream.cancel()
                    return False, last
        except grpc.RpcError:
            pass  # a broken stream: resume
        return False, last


def hosted():
    """The runner gave this sandbox a seat: play it to the end."""
    table, token = os.environ["SKAT_TABLE"], os.environ["SKAT_SEAT_TOKEN"]
    print(f"hosted: playing seat {os.environ.get('SKAT_SEAT', '?')} at {table}", flush=True)
    # gRPC's C core would name the socket's path as the HTTP/2 authority, which the
    # server refuses as malformed: name the host instead.
    options = [("grpc.default_authority", "localhost")]
    stub = rpc.SkatServiceStub(grpc.insecure_channel(os.environ["SKAT_SERVER"], options=options))
    bot = Bot(stub, table, token)
    bot.tested = True
    ended, last = bot.watch(0, drop_after=0)
    while not ended:
        time.sleep(0.1)
        ended, last = bot.watch(last, drop_after=0)


def main():
    if os.environ.get("SKAT_SEAT_TOKEN"):
        return hosted()
    if len(sys.argv) < 4:
        sys.exit("usage: skatbot.py SERVER TABLE NAME [JOIN_KEY]")
    server, table, name = sys.argv[1:4]
    key = sys.argv[4] if len(sys.argv) > 4 else str(uuid.uuid4())
    stub = rpc.SkatServiceStub(grpc.insecure_channel(server))  # TLS: grpc.secure_channel
    for _ in range(2):  # the second JoinTable is a retry, as after a lost answer: the same seat
        seat = stub.JoinTable(pb.JoinTableRequest(table_id=table, name=name, join_key=key))
        print(f"seat {seat.seat} (rejoined: {str(seat.rejoined).lower()})")
    bot = Bot(stub, table, seat.token)
    ended, last = bot.watch(0, drop_after=5)
    while not ended:
        time.sleep(0.1)
        print(f"resuming after seq {last}")
        # The turn may have come with the last event before the drop: act on the view.
        view = stub.GetTable(pb.GetTableRequest(table_id=table), metadata=bot.auth).table
        if view.HasField("deal") and is_turn(view.deal.legal):
            bot.act(view.deal.legal, view.seq)
        ended, last = bot.watch(last, drop_after=0)


if __name__ == "__main__":
    main()
