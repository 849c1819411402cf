"""The turn loop over gRPC: join, follow the stream, act on the events that carry this
seat's legal actions, reconnect and resume with after_seq when the stream breaks."""

import logging
import random
import time

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from . import errors, strategy

log = logging.getLogger("skat_bot")


def _send(stub, table_id, md, choice, expected_seq):
    kind = choice[0]
    common = dict(table_id=table_id, expected_seq=expected_seq)
    if kind == "bid":
        return stub.Bid(pb.BidRequest(call=pb.BID_CALL_SAY, value=choice[1], **common), metadata=md)
    if kind == "hold":
        return stub.Bid(pb.BidRequest(call=pb.BID_CALL_HOLD, **common), metadata=md)
    if kind == "pass":
        return stub.Bid(pb.BidRequest(call=pb.BID_CALL_PASS, **common), metadata=md)
    if kind == "take":
        return stub.TakeSkat(pb.TakeSkatRequest(pick_up=choice[1], **common), metadata=md)
    if kind == "discard":
        return stub.Discard(pb.DiscardRequest(cards=choice[1], **common), metadata=md)
    if kind == "declare":
        game, announcement = choice[1]
        return stub.Declare(pb.DeclareRequest(game=game, announcement=announcement, **common), metadata=md)
    if kind == "play":
        return stub.PlayCard(pb.PlayCardRequest(card=choice[1], **common), metadata=md)
    raise ValueError(kind)


def target(server):
    """A gRPC target from a server address: `127.0.0.1:50051` and
    `http://127.0.0.1:50051` both name the same server."""
    server = server.strip()
    for scheme in ("http://", "https://"):
        if server.startswith(scheme):
            return server[len(scheme):].rstrip("/")
    return server


def has_turn(legal):
    """Whether these legal actions give a turn (not only resign or claim out of turn)."""
    return bool(
        legal.cards or legal.discard_from or legal.contracts or legal.pick_up_skat or legal.play_hand
        or legal.hold or legal.may_pass or legal.min_bid
    )


def _act_if_turn(stub, table_id, md, rng, seq=None):
    view = stub.GetTable(pb.GetTableRequest(table_id=table_id), metadata=md).table
    if view.status != pb.TABLE_STATUS_PLAYING or (seq is not None and view.seq != seq):
        return
    if not has_turn(view.deal.legal):
        return
    choice = strategy.decide(view, rng)
    try:
        _send(stub, table_id, md, choice, view.seq)
    except grpc.RpcError as e:
        # The table moved on while we thought (a time-out, a resignation): a later event
        # brings the next turn.
        if errors.reason(e) not in ("STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED"):
            raise
        log.debug("action not taken: %s (%s)", errors.reason(e), e.details())


def play(server, table_id, token=None, name="python-bot", seat=None, seed=1, max_retries=50):
    """Plays one seat until the list is over; returns the final standings."""
    rng = random.Random(seed)
    channel = grpc.insecure_channel(target(server))
    stub = rpc.SkatServiceStub(channel)
    if token is None:
        req = pb.JoinTableRequest(table_id=table_id, name=name)
        if seat is not None:
            req.seat = seat
        token = stub.JoinTable(req).token
    md = (("authorization", f"Bearer {token}"),)
    last = stub.GetTable(pb.GetTableRequest(table_id=table_id), metadata=md).table.seq
    failures = 0
    while True:
        try:
            stream = stub.WatchTable(pb.WatchTableRequest(table_id=table_id, after_seq=last), metadata=md)
            _act_if_turn(stub, table_id, md, rng)
            for msg in stream:
                if not msg.HasField("event"):
                    continue
                event = msg.event
                last = event.seq
                failures = 0
                if event.HasField("match_ended"):
                    return list(event.match_ended.standings)
                if event.HasField("legal") and has_turn(event.legal):
                    _act_if_turn(stub, table_id, md, rng, event.seq)
        except grpc.RpcError as e:
            fell_behind = errors.reason(e) == "STREAM_BEHIND"
            if not fell_behind and e.code() not in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.CANCELLED,
                grpc.StatusCode.UNKNOWN,
            ):
                raise
            failures += 1
            if failures > max_retries:
                raise
            log.info("stream lost (%s); resuming after seq %d", e.code(), last)
            time.sleep(min(2.0, 0.05 * 2**failures))
            channel = grpc.insecure_channel(target(server))
            stub = rpc.SkatServiceStub(channel)
