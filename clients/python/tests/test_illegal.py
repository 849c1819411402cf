"""Bots that fail loudly and keep their seat, in Python and TypeScript: a bot that bids
19 (not on the ladder) is refused with INVALID_BID; the SDK logs ``illegal action
refused`` with the decision, the legal set and the reason, passes instead (the
fallback), and the lobby plays on, logging what it does (``lobby connected``,
``seated``, ``table finished``). ``lobby(lists=N)`` returns after N tables whatever
happened at them: with ``on_illegal="stop"`` the seat gives up, and the lobby still
returns."""

import logging
import os
import pathlib
import shutil
import socket
import subprocess
import threading
import time

import grpc
import pytest

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

import skat_sdk

REPO = pathlib.Path(__file__).resolve().parents[3]
SKAT = os.environ.get("SKAT_BIN", str(REPO / "target" / "debug" / "skat"))
TS_DIST = REPO / "clients" / "typescript" / "dist" / "src" / "index.js"

# A TypeScript bot that bids 19 whenever it may bid, in lobby mode for one table.
TS_ILLEGAL = """
const sdk = require(process.argv[1]);
class Nineteen extends sdk.Bot { bid(k) { return 19; } }
sdk.lobby(process.argv[2], process.argv[3], () => new Nineteen(), 3)
  .then((done) => { console.log(`done ${done.length}`); })
  .catch((e) => { console.error(`failed ${e}`); process.exit(1); });
"""


class Nineteen(skat_sdk.Bot):
    """Says 19 (not a bid on the ladder) whenever it may bid."""

    def bid(self, k):
        return 19


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    addr = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [SKAT, "serve", "--addr", addr, "--metrics-addr", "off", "--web-addr", "off", "--data-dir", str(tmp_path),
         "--admin-token", "op", "--action-timeout", "2s", "--deal-clock", "0s"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    channel = grpc.insecure_channel(addr)
    grpc.channel_ready_future(channel).result(timeout=60)
    try:
        yield addr, rpc.SkatServiceStub(channel)
    finally:
        proc.kill()
        proc.wait()


def tournament(stub, names, deals):
    return stub.CreateTournament(
        pb.CreateTournamentRequest(name="illegal bids", entrants=names, deals=deals, seed=7),
        metadata=(("authorization", "Bearer op"),),
    ).tournament_id


def test_python_and_typescript_bots_that_bid_19_keep_their_seats(server, caplog):
    node = shutil.which("node")
    if not TS_DIST.exists() or node is None:
        assert not os.environ.get("SKAT_REQUIRE_TS_BOT"), f"the TypeScript SDK is not built: {TS_DIST}"
        pytest.skip("the TypeScript SDK is not built (npm test in clients/typescript builds it)")
    addr, stub = server
    tokens = {n: stub.RegisterBot(pb.RegisterBotRequest(name=n), metadata=(("authorization", "Bearer op"),)).bot_token
              for n in ["py-19", "ts-19", "rust"]}
    rust = subprocess.Popen([SKAT, "bot", "--strategy", "heuristic", "--server", addr, "--bot-token", tokens["rust"]],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts = subprocess.Popen([node, "-e", TS_ILLEGAL, str(TS_DIST), addr, tokens["ts-19"]],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Three entrants meet in every seat rotation: three tables. Each lobby plays all
        # three (with fewer, a seat left behind at a table still in play times out, and
        # its penalties would depend on how fast the machine is).
        tid = tournament(stub, ["py-19", "ts-19", "rust"], 4)
        caplog.set_level(logging.INFO, logger="skat_sdk")
        played = []
        t = threading.Thread(target=lambda: played.extend(skat_sdk.lobby(addr, tokens["py-19"], Nineteen, lists=3)))
        t.start()
        t.join(timeout=240)
        assert not t.is_alive(), "lobby(lists=3) did not return after the three tables"
        assert len(played) == 3
        out, err = ts.communicate(timeout=240)
    finally:
        rust.kill()
        ts.kill()
    text = caplog.text
    warning = next(r for r in caplog.records if r.getMessage().startswith("illegal action refused"))
    assert warning.levelno == logging.WARNING
    message = warning.getMessage()
    assert "decision=bid 19" in message and "reason=INVALID_BID" in message, message
    assert "legal=bid " in message and "then=playing pass (fallback)" in message, message
    for words in ("lobby connected", "seated: table=", "table finished: table="):
        assert words in text, f"{words}: {text}"
    # TypeScript: the same words on standard error, and its lobby returned too.
    assert "done 3" in out, out + err
    assert "illegal action refused: decision=bid 19" in err and "reason=INVALID_BID" in err, err
    assert "then=playing pass (fallback)" in err and "table finished: table=" in err, err
    assert "lobby connected" in err and "seated: table=" in err, err
    # Nobody's seat timed out: every illegal bid was replaced at once.
    t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid)).tournament
    deadline = time.time() + 60
    while any(table.status != "finished" for table in t.tables) and time.time() < deadline:
        time.sleep(0.2)
        t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid)).tournament
    assert len(t.tables) == 3 and all(table.status == "finished" for table in t.tables), t.tables
    standings = {s.name: s for s in t.standings}
    assert standings["py-19"].penalties == 0 and standings["ts-19"].penalties == 0, t.standings


def test_a_seat_that_stops_on_an_illegal_bid_still_ends_the_lobby(server, caplog):
    addr, stub = server
    tokens = {n: stub.RegisterBot(pb.RegisterBotRequest(name=n), metadata=(("authorization", "Bearer op"),)).bot_token
              for n in ["stopper", "r1", "r2"]}
    bots = [subprocess.Popen([SKAT, "bot", "--strategy", "random", "--server", addr, "--bot-token", tokens[n]],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for n in ["r1", "r2"]]
    try:
        tournament(stub, ["stopper", "r1", "r2"], 2)
        caplog.set_level(logging.INFO, logger="skat_sdk")
        played = []
        t = threading.Thread(
            target=lambda: played.extend(skat_sdk.lobby(addr, tokens["stopper"], Nineteen, lists=1, on_illegal="stop"))
        )
        t.start()
        t.join(timeout=240)
        assert not t.is_alive(), "lobby(lists=1) returned after the seat stopped"
    finally:
        for b in bots:
            b.kill()
    assert played == []
    assert "then=stopping this seat" in caplog.text and "seat stopped: table=" in caplog.text, caplog.text


class Commenting(skat_sdk.Bot):
    """Bids what it may (so that a game is played) and comments on every card."""

    def bid(self, k):
        return k.legal.bid_from

    def comment(self, k):
        return f"py-note {k.legal.cards[0]}" if k.legal.cards else None


def test_a_bots_comments_reach_the_record_after_the_deal(server):
    addr, stub = server
    table = stub.CreateTable(pb.CreateTableRequest(seats=3, deals=1, seed=3),
                             metadata=(("authorization", "Bearer op"),)).table_id
    seats = [skat_sdk.Seat.join(addr, table, f"py{i}", i) for i in range(3)]
    threads = [threading.Thread(target=skat_sdk.play, args=(s, Commenting())) for s in seats]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    import json
    record = json.loads(stub.GetRecords(pb.GetRecordsRequest(table_id=table, format=pb.RECORD_FORMAT_JSON)).records[0])
    texts = [c["text"] for c in record["comments"]]
    assert texts and all(t.startswith("py-note ") for t in texts), record.get("comments")
    for c in record["comments"]:
        assert record["moves"][c["move"]]["action"] == "play"


class Verbose(Commenting):
    """Comments too long for the server on every card."""

    def comment(self, k):
        return "y" * 300 if k.legal.cards else None


def test_a_refused_comment_costs_the_comment_not_the_action(server, caplog):
    addr, stub = server
    table = stub.CreateTable(pb.CreateTableRequest(seats=3, deals=1, seed=3),
                             metadata=(("authorization", "Bearer op"),)).table_id
    caplog.set_level(logging.WARNING, logger="skat_sdk")
    seats = [skat_sdk.Seat.join(addr, table, f"v{i}", i) for i in range(3)]
    results = []
    threads = [threading.Thread(target=lambda s=s: results.append(skat_sdk.play(s, Verbose()))) for s in seats]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 3, "every seat played its list to the end"
    assert all(s.penalties == 0 for s in results[0].standings)
    assert "comment refused" in caplog.text
