"""End to end: the real `skat serve`, the Python bot and two Rust bots play a whole list."""

import json
import logging
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time

import grpc
import pytest

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

import skat_sdk
from skat_sdk import Card, Knowledge, Seat, errors, play
from skat_bot import JackBot

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


def assert_played_out_in_time(stub, table, deals):
    """The table's ``deals`` records, none of them a seat's time-out (a penalty or a forfeit)."""
    records = stub.GetRecords(pb.GetRecordsRequest(table_id=table, format=pb.RECORD_FORMAT_JSON)).records
    assert len(records) == deals
    for r in records:
        outcome = json.loads(r)["outcome"]
        assert outcome["kind"] != "penalty"
        assert outcome.get("end", {}).get("end") != "forfeit", "no seat timed out"


def db_server(data_dir, *extra):
    """`skat serve` with its database in `data_dir`: the process, its address, a stub."""
    addr = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [SKAT, "serve", "--addr", addr, "--metrics-addr", "off", "--data-dir", str(data_dir), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    channel = grpc.insecure_channel(addr)
    grpc.channel_ready_future(channel).result(timeout=30)
    return proc, addr, rpc.SkatServiceStub(channel)


def test_both_address_forms_name_the_same_server():
    from skat_sdk import target

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

    seat = Seat.join(addr, table, "python", 0)

    def python_seat():
        # At every decision the knowledge folded from the stream must equal the view.
        finished = play(seat, JackBot(3), verify_knowledge=True)
        result["standings"] = finished.standings
        result["verified"] = finished.verified

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
    assert result["verified"] > 100, f"the knowledge was compared with the view at {result['verified']} decisions"

    view = stub.GetTable(pb.GetTableRequest(table_id=table)).table
    assert view.status == pb.TABLE_STATUS_FINISHED
    assert view.deals_played == 36
    assert [s.seeger_fabian for s in view.standings] == [s.seeger_fabian for s in standings]

    # The Python seat answered every turn in time: no forfeit anywhere.
    assert_played_out_in_time(stub, table, 36)
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


def test_what_a_position_cannot_hold_follows_the_declared_game():
    k = Knowledge(seat=0)
    k.apply(pb.Event(seq=1, deal_started=pb.DealStarted(number=0, position_seats=[0, 1, 2], hand=[pb.CARD_CJ, pb.CARD_SJ])))
    assert k.position == pb.POSITION_FOREHAND

    def played(seq, position, card, winner=0):
        facts = pb.DealFacts(phase=pb.PHASE_PLAYING, declaration=pb.Contract(game=pb.GAME_TYPE_GRAND), trick_winner=winner)
        action = pb.Action(kind=pb.ACTION_KIND_PLAY_CARD, card=card)
        k.apply(pb.Event(seq=seq, action_taken=pb.ActionTaken(position=position, action=action, facts=facts)))

    played(2, pb.POSITION_FOREHAND, pb.CARD_CJ)
    played(3, pb.POSITION_MIDDLEHAND, pb.CARD_HA)
    played(4, pb.POSITION_REARHAND, pb.CARD_DJ, pb.POSITION_FOREHAND)
    jacks = {Card.parse(j) for j in ("DJ", "HJ", "SJ", "CJ")}
    assert k.cannot_hold[1] == jacks, "no jack on a jack lead in grand: no trumps"
    assert k.cannot_hold[2] == set()
    assert k.hand == {Card(pb.CARD_SJ)}
    assert len(k.tricks) == 1 and k.tricks[0].winner == pb.POSITION_FOREHAND and k.current_trick is None
    assert len(k.played) == 3 and k.cards_out.isdisjoint(k.played | k.hand)


def test_a_bot_authors_first_hour(server, tmp_path):
    """The README's path: the SDK installed (this test runs from the installed package),
    the 30-line example bot seated at a table from `skat table create`, watched with
    `skat watch`, playing a whole 36-deal list."""
    addr, stub = server
    example = REPO / "clients" / "python" / "examples" / "first_bot.py"
    assert len(example.read_text().splitlines()) <= 40, "the example bot is about 30 lines"
    created = subprocess.run(
        [SKAT, "table", "create", "--server", addr, "--deals", "36", "--seed", "8", "--action-timeout", "20s"],
        check=True, capture_output=True, text=True,
    ).stdout
    table = created.split()[1]
    assert "skat watch" in created and "python -m skat_bot" in created
    watcher = subprocess.Popen([SKAT, "watch", table, "--server", addr], stdout=subprocess.PIPE, text=True)
    bot = subprocess.Popen([sys.executable, str(example), addr, table], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(0.3)
    rust = [
        subprocess.Popen([SKAT, "bot", "--strategy", "heuristic", "--server", addr, "--table", table, "--seat", str(i)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i in (1, 2)
    ]
    out, _ = bot.communicate(timeout=300)
    assert bot.returncode == 0
    # The finished list in words: the bot's table, seat and place, then a row per seat.
    lines = out.splitlines()
    assert lines[0].startswith(f"table {table}, seat 0: place "), out
    assert any(line.startswith(">") and "first-bot" in line for line in lines), out
    for p in rust:
        assert p.wait(timeout=60) == 0
    watched, _ = watcher.communicate(timeout=60)
    assert watcher.returncode == 0
    assert "deal 36/36" in watched and "the list is complete" in watched
    listed = subprocess.run([SKAT, "table", "list", "--server", addr], check=True, capture_output=True, text=True).stdout
    assert any(line.startswith(table) and "finished" in line for line in listed.splitlines())


def counting_proxy(target, freeze=None):
    """A TCP proxy to ``target`` (``host:port``) on loopback; returns its address and a
    function that tells how many connections it accepted. Once ``freeze`` (an Event) is
    set, the connections open then pass nothing more either way and are never closed (as
    when a server's machine vanishes from the network); later ones pass."""
    host, port = target.rsplit(":", 1)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted = []

    def pipe(a, b, frozen):
        try:
            while data := a.recv(65536):
                if frozen():
                    threading.Event().wait()
                b.sendall(data)
        except OSError:
            pass
        finally:
            a.close()
            b.close()

    def serve():
        while True:
            inbound, _ = listener.accept()
            accepted.append(1)
            outbound = socket.create_connection((host, int(port)))
            born_frozen = freeze is not None and freeze.is_set()
            frozen = lambda: freeze is not None and freeze.is_set() and not born_frozen  # noqa: E731
            threading.Thread(target=pipe, args=(inbound, outbound, frozen), daemon=True).start()
            threading.Thread(target=pipe, args=(outbound, inbound, frozen), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return f"127.0.0.1:{listener.getsockname()[1]}", lambda: len(accepted)


def test_a_seat_whose_connection_goes_silent_notices_by_its_pings_and_misses_no_turn(tmp_path):
    """Pings every second through a proxy that freezes at the seat's eighth decision:
    the seat gives the silent connection up, reconnects and plays on before its 10 s
    clock runs out. Without pings it would wait on the frozen stream for good."""
    port = free_port()
    addr = f"127.0.0.1:{port}"
    proc = subprocess.Popen(
        [SKAT, "serve", "--addr", addr, "--metrics-addr", "off", "--action-timeout", "10s", "--database", "memory"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        stub = rpc.SkatServiceStub(grpc.insecure_channel(addr))
        grpc.channel_ready_future(grpc.insecure_channel(addr)).result(timeout=30)
        table = stub.CreateTable(pb.CreateTableRequest(name="silent", seats=3, deals=4, seed=3)).table_id
        freeze = threading.Event()
        through, accepted = counting_proxy(addr, freeze)

        class Freezing(JackBot):
            decisions = 0

            def act(self, k):
                Freezing.decisions += 1
                if Freezing.decisions == 8:
                    freeze.set()

            def bid(self, k):
                self.act(k)
                return super().bid(k)

            def answer(self, k, bid):
                self.act(k)
                return super().answer(k, bid)

            def play(self, k):
                self.act(k)
                return super().play(k)

        address = skat_sdk.ServerAddress(through, keepalive_ms=1000, keepalive_timeout_ms=1000)
        seat = Seat.join(address, table, "python", 0)
        result = {}
        t = threading.Thread(target=lambda: result.update(finished=play(seat, Freezing(3))))
        t.start()
        rust = [
            subprocess.Popen([SKAT, "bot", "--strategy", "random", "--server", f"http://{addr}", "--table", table, "--seat", str(i)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i in (1, 2)
        ]
        t.join(timeout=90)
        assert not t.is_alive(), "the list did not finish: the seat waited on its frozen connection"
        for p in rust:
            assert p.wait(timeout=60) == 0
        assert Freezing.decisions > 8
        assert result["finished"].reconnects >= 1
        assert accepted() >= 2, "a new connection after the frozen one"
        assert_played_out_in_time(stub, table, 4)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_lobby_puts_at_most_32_seats_on_a_connection(server, monkeypatch):
    """Seats take the first connection group with room, and channels of different groups
    are different connections (gRPC shares one among channels with the same options)."""
    # The module (the package's `lobby` is the function).
    lobby_module = sys.modules["skat_sdk.lobby"]
    addr, _ = server
    monkeypatch.setattr(lobby_module, "SEATS_PER_CONNECTION", 2)
    state = lobby_module._Lobby(skat_sdk.ServerAddress(addr), "unused", None)
    assert [state.take_group() for _ in range(5)] == [0, 0, 1, 1, 2]
    state.release_group(0)
    assert state.take_group() == 0, "a freed place is taken first"
    via, connections = counting_proxy(addr)
    channels = [skat_sdk.ServerAddress(via).channel(group) for group in (0, 0, 1, 1, 2)]
    for channel in channels:
        rpc.SkatServiceStub(channel).GetServerInfo(pb.GetServerInfoRequest(), timeout=10)
    assert connections() == 3, f"three groups, {connections()} connections"
    for channel in channels:
        channel.close()


def test_a_lobbys_seats_watch_on_their_connections_one_stream():
    """Seats of a connection group (a lobby's) watch their table on one WatchTables stream:
    the same play as on a stream each, the server never sees a WatchTable call, and a
    refused watch raises what WatchTable would have."""
    port, metrics_port = free_port(), free_port()
    addr = f"127.0.0.1:{port}"
    proc = subprocess.Popen(
        [SKAT, "serve", "--addr", addr, "--metrics-addr", f"127.0.0.1:{metrics_port}", "--action-timeout", "20s",
         "--database", "memory"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        channel = grpc.insecure_channel(addr)
        grpc.channel_ready_future(channel).result(timeout=30)
        stub = rpc.SkatServiceStub(channel)
        table = stub.CreateTable(pb.CreateTableRequest(name="shared", seats=3, deals=3, seed=4)).table_id
        seats = []
        for i in range(3):
            joined = Seat.join(addr, table, f"p{i}", seat=i)
            seats.append(Seat(addr, table, joined.token, joined.seat, connection_group=7))
        assert all(seat.hub is seats[0].hub for seat in seats), "one hub for the group's connection"
        results = [None] * 3
        threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, play(seats[i], JackBot(2)))) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert all(r is not None and r.standings == results[0].standings for r in results)
        assert_played_out_in_time(stub, table, 3)
        # A token that holds no seat: the watch raises what WatchTable raises.
        stranger = Seat(addr, table, "no-such-token-anywhere", 0, connection_group=7)
        with pytest.raises(grpc.RpcError) as refused:
            list(stranger.watch(0))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert errors.reason(refused.value) == "NOT_SEATED"
        import urllib.request

        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        calls = [line for line in text.splitlines() if line.startswith("skat_rpcs_total")]
        assert any('method="WatchTables"' in line for line in calls), "the seats watched on WatchTables"
        assert not any('method="WatchTable"' in line for line in calls), "and never on a stream each"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_lobby_mode_plays_a_tournament(tmp_path):
    """The Python SDK's lobby: an account's bot plays every table of a tournament against
    two Rust bots in lobby mode, its seats on the lobby's connection (gRPC shares one
    among the channels to an address), which a proxy counts."""
    proc, addr, stub = db_server(tmp_path, "--admin-token", "op")
    try:
        tokens = {n: stub.RegisterBot(pb.RegisterBotRequest(name=n)).bot_token for n in ("py", "h", "r")}
        rust = [
            subprocess.Popen([SKAT, "bot", "--strategy", s, "--server", addr, "--bot-token", tokens[n]],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for n, s in (("h", "heuristic"), ("r", "random"))
        ]
        result = {}
        via, connections = counting_proxy(addr)
        t = threading.Thread(target=lambda: result.setdefault("lists", skat_sdk.lobby(via, tokens["py"], lambda: JackBot(2), lists=3)))
        t.start()
        md = (("authorization", "Bearer op"),)
        created = stub.CreateTournament(
            pb.CreateTournamentRequest(name="py cup", entrants=["py", "h", "r"], deals=4,
                                       time_control=pb.TimeControl(action_ms=20000), seed=5),
            metadata=md,
        )
        assert created.tables == 3, "one triple in three rotations"
        t.join(timeout=240)
        assert not t.is_alive(), "the lobby played its three tables"
        assert len(result["lists"]) == 3
        assert connections() <= 2, f"the lobby and its three seats opened {connections()} connections"
        deadline = time.time() + 60
        while True:
            tour = stub.GetTournament(pb.GetTournamentRequest(tournament_id=created.tournament_id)).tournament
            if tour.finished or time.time() > deadline:
                break
            time.sleep(0.2)
        assert tour.finished
        py = next(s for s in tour.standings if s.name == "py")
        assert py.lists == 3 and py.penalties == 0
        for p in rust:
            p.kill()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_casual_play_matches_python_and_rust_bots(tmp_path):
    """Casual play: a Python bot and two Rust bots ask their lobbies for casual tables and
    are matched into a rated meeting (one list in every seat rotation)."""
    proc, addr, stub = db_server(tmp_path, "--casual-deals", "3")
    try:
        tokens = {n: stub.RegisterBot(pb.RegisterBotRequest(name=n)).bot_token for n in ("py", "h", "r")}
        rust = [
            subprocess.Popen([SKAT, "bot", "--strategy", s, "--server", addr, "--bot-token", tokens[n], "--casual", "3"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for n, s in (("h", "heuristic"), ("r", "random"))
        ]
        result = {}
        t = threading.Thread(target=lambda: result.setdefault(
            "lists", skat_sdk.lobby(addr, tokens["py"], lambda: JackBot(2), lists=3, casual_seats=3)))
        t.start()
        t.join(timeout=240)
        assert not t.is_alive(), "the casual meeting's three tables were played"
        assert len(result["lists"]) == 3
        deadline = time.time() + 60
        while True:
            bot = stub.GetBot(pb.GetBotRequest(name="py")).bot
            if bot.rating.lists >= 3 or time.time() > deadline:
                break
            time.sleep(0.2)
        assert bot.rating.lists >= 3, "the casual meeting is rated"
        listed = stub.ListTournaments(pb.ListTournamentsRequest(include_casual=True)).tournaments
        assert any(x.format == pb.TOURNAMENT_FORMAT_CASUAL and sorted(x.entrants) == ["h", "py", "r"] for x in listed)
        for p in rust:
            p.kill()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# A TypeScript bot in lobby mode that accepts challenges from `h` only, for three tables.
TS_CHALLENGED = """
const sdk = require(process.argv[1]);
class Jack extends sdk.Bot {}
sdk.lobby(process.argv[2], process.argv[3], () => new Jack(), 3, { acceptChallenges: ["h"] })
  .then((done) => { console.log(`done ${done.length}`); })
  .catch((e) => { console.error(`failed ${e}`); process.exit(1); });
"""


def test_challenges_are_answered_from_a_list_in_python_and_typescript(tmp_path, caplog):
    """Challenges reach the lobbies that ask for them: a Python bot and a TypeScript bot
    accept a challenge from `h` (in their lists) and play its meeting; the Python bot
    declines one from `ts` (not in its list); the house bot accepts anybody's. The Python
    bot also offers itself to people's tables and is seated at one with the house bot."""
    ts_dist = REPO / "clients" / "typescript" / "dist" / "src" / "index.js"
    proc, addr, stub = db_server(tmp_path, "--admin-token", "op", "--house-bots", "random", "--action-timeout", "20s")
    try:
        md = (("authorization", "Bearer op"),)
        tokens = {n: stub.RegisterBot(pb.RegisterBotRequest(name=n), metadata=md).bot_token for n in ("py", "ts", "h")}
        bearer = lambda n: (("authorization", f"Bearer {tokens[n]}"),)  # noqa: E731
        rust = subprocess.Popen([SKAT, "bot", "--strategy", "heuristic", "--server", addr, "--bot-token", tokens["h"]],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        result = {}
        caplog.set_level(logging.INFO, logger="skat_sdk")
        t = threading.Thread(target=lambda: result.setdefault(
            "lists", skat_sdk.lobby(addr, tokens["py"], lambda: JackBot(2), lists=4, accept_challenges=["h"], open_tables=True)))
        t.start()
        ts = subprocess.Popen(["node", "-e", TS_CHALLENGED, str(ts_dist), addr, tokens["ts"]],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2)  # every lobby is open

        def state(who, challenge_id, wanted):
            deadline = time.time() + 60
            while time.time() < deadline:
                listed = stub.ListChallenges(pb.ListChallengesRequest(), metadata=bearer(who)).challenges
                now = next(c for c in listed if c.challenge_id == challenge_id)
                if now.state == wanted:
                    return now
                time.sleep(0.2)
            raise AssertionError(f"challenge {challenge_id} never became {wanted}: {now}")

        # A person's table with the Python bot and the house bot seated at once (open_tables).
        people = stub.CreateTable(pb.CreateTableRequest(deals=1, bots=["py", "house-random"],
                                                        time_control=pb.TimeControl(action_ms=20000)))
        assert [s.name for s in people.table.seat_info if s.occupied] == ["py", "house-random"]
        person = subprocess.Popen([SKAT, "bot", "--strategy", "random", "--server", addr, "--table", people.table_id],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        declined = stub.Challenge(pb.ChallengeRequest(opponents=["py", "house-random"], deals=2), metadata=bearer("ts"))
        gone = state("ts", declined.challenge.challenge_id, pb.CHALLENGE_STATE_DECLINED)
        assert list(gone.accepted) in ([], ["house-random"])
        made = stub.Challenge(pb.ChallengeRequest(opponents=["py", "ts"], deals=2), metadata=bearer("h"))
        accepted = state("h", made.challenge.challenge_id, pb.CHALLENGE_STATE_ACCEPTED)
        assert sorted(accepted.accepted) == ["py", "ts"] and accepted.tournament_id
        t.join(timeout=240)
        assert not t.is_alive(), "the Python bot played the meeting's three tables and the person's table"
        assert len(result["lists"]) == 4
        assert person.wait(timeout=60) == 0
        out, err = ts.communicate(timeout=240)
        assert ts.returncode == 0 and "done 3" in out, (out, err)
        words = [r.getMessage() for r in caplog.records]
        assert any(w.startswith("challenge declined: ") and "challenger=ts" in w for w in words), words
        assert any(w.startswith("challenge accepted: ") and "challenger=h" in w for w in words), words
        rust.kill()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def postgres_database(name):
    """A fresh database on the test PostgreSQL server (`SKAT_TEST_POSTGRES`, made with
    psql from `SKAT_PG_BIN`); the test is skipped without one unless it must run."""
    admin = os.environ.get("SKAT_TEST_POSTGRES")
    if not admin:
        assert not os.environ.get("SKAT_REQUIRE_POSTGRES"), "SKAT_REQUIRE_POSTGRES is set but SKAT_TEST_POSTGRES is not"
        pytest.skip("SKAT_TEST_POSTGRES is not set (scripts/test-all sets it)")
    psql = os.path.join(os.environ.get("SKAT_PG_BIN", "/usr/bin"), "psql")
    for sql in (f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}"):
        subprocess.run([psql, "-q", admin, "-c", sql], check=True, stdout=subprocess.DEVNULL)
    return admin.rsplit("/", 1)[0] + "/" + name


class SlowJack(JackBot):
    """Thinks 40 ms per card, so that the list is still running when its replica dies."""

    def play(self, k):
        time.sleep(0.04)
        return super().play(k)


# A TypeScript bot that joins seat 1 at the address given and plays the list out.
TS_SEAT = """
const sdk = require(process.argv[1]);
sdk.joinAndPlay(process.argv[2], process.argv[3], new sdk.Bot(), { name: "ts", seat: 1 })
  .then((f) => { console.log(`finished reconnects=${f.reconnects}`); })
  .catch((e) => { console.error(`failed ${e}`); process.exit(1); });
"""


def test_seats_in_three_languages_follow_their_table_when_its_replica_dies(tmp_path, caplog):
    """Two replicas on PostgreSQL; a table on `a`; a Python seat, a TypeScript bot and a
    Rust bot, all sent to `b` and redirected to `a`; `a` killed with SIGKILL and never
    restarted: `b` takes the table over when a's lease runs out, and each SDK finds the
    table there through the address it was first sent to, and finishes the list. (Once in
    about twenty runs the TypeScript seat's stream broke with ABORTED `read ECONNRESET`,
    which Node reports for a killed server, and the SDK took it for a refusal and stopped;
    it now reconnects on it: `brokenConnection` in clients/typescript/src/errors.ts.)"""
    db = postgres_database(f"skat_sdk_takeover_{os.getpid()}")
    pa, pb_ = free_port(), free_port()
    peers = f"a=127.0.0.1:{pa},b=127.0.0.1:{pb_}"

    logs = {}

    def replica(node, port):
        logs[node] = tmp_path / f"{node}.log"
        return subprocess.Popen(
            [SKAT, "serve", "--addr", f"127.0.0.1:{port}", "--metrics-addr", "off", "--web-addr", "off",
             "--node-id", node, "--peer", peers, "--database", db, "--replica-lease", "2s", "--action-timeout", "30s"],
            stdout=subprocess.DEVNULL, stderr=open(logs[node], "w"), env={**os.environ, "RUST_LOG": "info"},
        )

    def said(node):
        lines = [line for line in logs[node].read_text().splitlines() if "rpc{" not in line]
        return f"\n--- {node}'s log:\n" + "\n".join(lines[-25:])

    a, b = replica("a", pa), replica("b", pb_)
    procs = [a, b]
    try:
        stubs = []
        for port in (pa, pb_):
            channel = grpc.insecure_channel(f"127.0.0.1:{port}")
            grpc.channel_ready_future(channel).result(timeout=30)
            stubs.append(rpc.SkatServiceStub(channel))
        on_a, on_b = stubs
        table = on_a.CreateTable(pb.CreateTableRequest(seats=3, deals=6, seed=5)).table_id
        home = f"127.0.0.1:{pb_}"
        seat = Seat.join(home, table, "py", seat=0)
        assert seat.server == f"127.0.0.1:{pa}", "JoinTable at b followed the redirect to a"
        result = {}
        t = threading.Thread(target=lambda: result.setdefault("py", play(seat, SlowJack(3))))
        t.start()
        ts_dist = REPO / "clients" / "typescript" / "dist" / "src" / "index.js"
        # The TypeScript SDK's log at debug in a file (a pipe nobody reads could fill).
        ts_log = tmp_path / "ts.log"
        ts = subprocess.Popen(["node", "-e", TS_SEAT, str(ts_dist), home, table],
                              stdout=subprocess.PIPE, stderr=open(ts_log, "w"), text=True,
                              env={**os.environ, "SKAT_LOG": "debug"})
        rust = subprocess.Popen([SKAT, "bot", "--strategy", "heuristic", "--server", home, "--table", table,
                                 "--seat", "2", "--name", "rust"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs += [ts, rust]
        deadline = time.time() + 60
        while on_a.GetTable(pb.GetTableRequest(table_id=table)).table.deals_played < 1:
            assert time.time() < deadline, "the list did not get going"
            time.sleep(0.02)
        a.kill()
        a.wait(timeout=10)

        caplog.set_level(logging.DEBUG, logger="skat_sdk")
        t.join(timeout=120)
        sdk_log = "\n".join(r.getMessage() for r in caplog.records[-20:])
        def ts_said():
            return "\n--- the TypeScript seat's log:\n" + "\n".join(ts_log.read_text().splitlines()[-30:])

        assert "py" in result, f"the Python seat finished{said('b')}\n--- the SDK's log:\n{sdk_log}{ts_said()}"
        assert result["py"].reconnects >= 1
        out, _ = ts.communicate(timeout=120)
        assert ts.returncode == 0, ts_said() + said("b")
        assert "finished reconnects=" in out and "reconnects=0" not in out, out + ts_said()
        _, err = rust.communicate(timeout=120)
        assert rust.returncode == 0, err + said("b")
        view = on_b.GetTable(pb.GetTableRequest(table_id=table)).table
        assert view.status == pb.TABLE_STATUS_FINISHED and view.deals_played == 6
        assert seat.server == f"127.0.0.1:{pb_}", "the Python seat plays on at b"
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
