"""python -m skat_bot --server HOST:PORT --table ID [--token T | --name N] [--seat S]"""

import argparse
import logging

from .client import play


def main():
    p = argparse.ArgumentParser(prog="skat_bot", description="A Python Skat bot for the open Skat server.")
    p.add_argument("--server", default="127.0.0.1:50051", help="host:port of the gRPC server")
    p.add_argument("--table", required=True, help="table id")
    p.add_argument("--token", help="a seat token handed out elsewhere (skat arena); otherwise join")
    p.add_argument("--name", default="python-bot", help="the name shown at the table")
    p.add_argument("--seat", type=int, help="the seat to take when joining")
    p.add_argument("--seed", type=int, default=1, help="seed for tie-breaking")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO)
    server = args.server.removeprefix("http://")
    standings = play(server, args.table, token=args.token, name=args.name, seat=args.seat, seed=args.seed)
    for s in standings:
        print(f"seat {s.seat} {s.name:<16} plain {s.plain:>6}  Seeger-Fabian {s.seeger_fabian:>6}  declared {s.declared} won {s.won}")


if __name__ == "__main__":
    main()
