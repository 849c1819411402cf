"""The competition issue's whole test, across languages: six accounts (Rust heuristic and
random bots, this SDK's bot, the TypeScript SDK's bot, one that never connects, one that
disconnects mid-tournament and comes back) play every triple in duplicate to the end,
through a `kill -9` of the server; the absent account's seats forfeit, heuristic is above
random in the standings and the ratings, and nobody plays more tables at once than the
quota."""

import os
import pathlib
import random
import shutil
import signal
import socket
import subprocess
import threading
import time

import grpc
import pytest

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

import skat_sdk
from skat_bot import JackBot

REPO = pathlib.Path(__file__).resolve().parents[3]
SKAT = os.environ.get("SKAT_BIN", str(REPO / "target" / "debug" / "skat"))
TS_BOT = REPO / "clients" / "typescript" / "dist" / "src" / "main.js"


def free_port():
    """A free port below the kernel's ephemeral range (32768 up): the server is restarted
    on the same port while a dozen bots retry connecting to it, and a client retrying a
    port inside that range can be given it as its own source port and connect to itself
    (TCP's simultaneous open), holding the port the server must bind again."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000")


def serve(addr, data):
    """`skat serve` on `addr`; its log appended to data/server.log (printed on failure)."""
    log = open(data / "server.log", "ab")
    return subprocess.Popen(
        [SKAT, "serve", "--addr", addr, "--metrics-addr", "off", "--data-dir", str(data), "--admin-token", "op",
         "--action-timeout", "300ms", "--deal-clock", "0s", "--account-max-tables", "2",
         # Every bot here connects from 127.0.0.1, and after the restart all reconnect at
         # once: the per-address connection limit is for distinct clients, not this test.
         "--max-connections-per-client", "10000", "--web-addr", "off"],
        stdout=log, stderr=log,
    )


def connect(addr, old=None):
    """A stub on a fresh channel to `addr`, once it is ready; `old` (the channel to a
    server that was killed) is closed first. The channel keeps its own subchannel: by
    default grpc shares one per address across a process's channels, and the new channel
    then inherits the dead one's reconnect backoff (once seen here waiting out 120 s
    while the restarted server already served the bots)."""
    if old is not None:
        old.close()
    channel = grpc.insecure_channel(addr, options=[("grpc.use_local_subchannel_pool", 1)])
    grpc.channel_ready_future(channel).result(timeout=120)
    return channel, rpc.SkatServiceStub(channel)


def test_six_accounts_in_three_languages_play_a_tournament_through_a_restart(tmp_path):
    node = shutil.which("node")
    if not TS_BOT.exists() or node is None:
        assert not os.environ.get("SKAT_REQUIRE_TS_BOT"), f"the TypeScript bot is not built: {TS_BOT}"
        pytest.skip("the TypeScript bot is not built (npm test in clients/typescript builds it)")
    addr = f"127.0.0.1:{free_port()}"
    server = serve(addr, tmp_path)
    procs = []
    try:
        channel, stub = connect(addr)
        names = ["heuristic", "random", "python", "typescript", "absent", "flaky"]
        tokens = {n: stub.RegisterBot(pb.RegisterBotRequest(name=n)).bot_token for n in names}

        def rust(name, strategy):
            p = subprocess.Popen([SKAT, "bot", "--strategy", strategy, "--server", addr, "--bot-token", tokens[name]],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(p)
            return p

        rust("heuristic", "heuristic")
        rust("random", "random")
        flaky = rust("flaky", "heuristic")
        procs.append(subprocess.Popen([node, str(TS_BOT), "--server", addr, "--bot-token", tokens["typescript"]],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        threading.Thread(target=lambda: skat_sdk.lobby(addr, tokens["python"], lambda: JackBot(3)), daemon=True).start()

        created = stub.CreateTournament(
            pb.CreateTournamentRequest(name="three languages", entrants=names, deals=3, seed=11,
                                       time_control=pb.TimeControl(action_ms=300)),
            metadata=(("authorization", "Bearer op"),),
        )
        assert created.tables == 20 * 3, "every triple of six, in three rotations"

        def tournament():
            return stub.GetTournament(pb.GetTournamentRequest(tournament_id=created.tournament_id)).tournament

        def check_quota(t):
            for n in names:
                at_once = sum(1 for x in t.tables if x.status == "playing" and n in x.seating)
                assert at_once <= 2, f"{n} plays {at_once} tables at once; its quota is 2"

        # The flaky bot disconnects once some tables have finished, and comes back.
        deadline = time.time() + 120
        while sum(1 for x in tournament().tables if x.status == "finished") < 6:
            check_quota(tournament())
            assert time.time() < deadline, "no tables finished"
            time.sleep(0.1)
        flaky.kill()
        time.sleep(1.0)
        rust("flaky", "heuristic")

        # kill -9 in the middle; every bot reconnects by itself.
        while sum(1 for x in tournament().tables if x.status == "finished") < 20:
            assert time.time() < deadline, "the tournament stalled before the restart"
            time.sleep(0.1)
        before = {x.table_id: x.status for x in tournament().tables}
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
        server = serve(addr, tmp_path)
        channel, stub = connect(addr, channel)
        after = {x.table_id: x.status for x in tournament().tables}
        for table_id, status in before.items():
            if status == "finished":
                assert after[table_id] == "finished", "a finished table is still finished after the restart"

        deadline = time.time() + 300
        while True:
            t = tournament()
            check_quota(t)
            if t.finished:
                break
            assert time.time() < deadline, f"the tournament did not finish: {t}"
            time.sleep(0.1)
        assert all(x.status == "finished" for x in t.tables)
        standing = {s.name: s for s in t.standings}
        assert all(standing[n].lists == 30 for n in names), "each entrant sits at 10 triples x 3 rotations"
        assert standing["absent"].penalties > 0 and standing["absent"].declared == 0
        assert standing["python"].penalties < standing["absent"].penalties
        assert standing["typescript"].penalties < standing["absent"].penalties
        assert standing["heuristic"].mean > standing["random"].mean, list(t.standings)
        board = {e.name: e for e in stub.GetLeaderboard(pb.GetLeaderboardRequest()).entries}
        assert board["heuristic"].rating > board["random"].rating
        assert all(board[n].lists == 30 for n in names), "every list rated once, also through the restart"
    except BaseException:
        log = (tmp_path / "server.log").read_text(errors="replace")
        print("the server's log (the last 60 lines):\n" + "\n".join(log.splitlines()[-60:]))
        raise
    finally:
        for p in procs:
            p.kill()
        server.kill()
        server.wait(timeout=10)
