"""python -m skat_bot --server HOST:PORT --table ID [--token T | --name N] [--seat S]"""

import argparse
import logging
import sys

import grpc

from skat_sdk import Seat, errors, lobby, play

from .strategy import JackBot


def main():
    p = argparse.ArgumentParser(prog="skat_bot", description="The Python SDK's example Skat bot.")
    p.add_argument("--server", default="127.0.0.1:50051", help="host:port (or http://host:port) of the server")
    p.add_argument("--table", help="table id (without it, --bot-token: play every seat the lobby gives)")
    p.add_argument("--bot-token", help="an account's bot token: lobby mode")
    p.add_argument("--lists", type=int, help="in lobby mode, stop after this many tables")
    p.add_argument("--token", help="a seat token handed out elsewhere (skat arena, skat table create)")
    p.add_argument("--name", default="python-bot", help="the name shown at the table")
    p.add_argument("--seat", type=int, help="the seat to take when joining")
    p.add_argument("--seed", type=int, default=1, help="seed for tie-breaking")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO)
    if args.table is None:
        if not args.bot_token:
            p.error("--table or --bot-token is needed")
        played = lobby(args.server, args.bot_token, lambda: JackBot(args.seed), args.lists)
        print(f"lobby: {len(played)} tables played")
        return
    try:
        seat = Seat.with_token(args.server, args.table, args.token) if args.token else Seat.join(args.server, args.table, args.name, args.seat)
        finished = play(seat, JackBot(args.seed))
    except grpc.RpcError as e:
        why = errors.reason(e)
        if e.code() == grpc.StatusCode.UNAVAILABLE and why is None:
            sys.exit(f"nothing is listening at {args.server}: is `skat serve` running?")
        sys.exit(f"the server refused: {e.details()}" + (f" ({why})" if why else ""))
    for s in finished.standings:
        print(f"seat {s.seat} {s.name:<16} plain {s.plain:>6}  Seeger-Fabian {s.seeger_fabian:>6}  declared {s.declared} won {s.won}")


if __name__ == "__main__":
    main()
