"""python -m skat_bot --server HOST:PORT|https://HOST --table ID [--token T | --name N] [--seat S] [--ca-file CA.pem]"""

import argparse
import logging
import os
import sys

import grpc

from skat_sdk import PlainTextRefused, Seat, ServerAddress, errors, lobby, play

from .strategy import JackBot


def main():
    p = argparse.ArgumentParser(prog="skat_bot", description="The Python SDK's example Skat bot.")
    p.add_argument(
        "--server",
        default=os.environ.get("SKAT_SERVER", "127.0.0.1:50051"),
        help="https://host[:port] (TLS), or host:port / http://host:port (plain text; tokens only to this machine unless --insecure)",
    )
    p.add_argument("--ca-file", help="a PEM file with the CA that signed the server's certificate (default: SKAT_CA_FILE)")
    p.add_argument("--client-cert", help="this client's certificate (PEM) for a server that wants mutual TLS")
    p.add_argument("--client-key", help="the key of --client-cert (PEM)")
    p.add_argument(
        "--insecure",
        action="store_true",
        default=None,
        help="send tokens in plain text to a server that is not this machine (a network you trust; default: SKAT_INSECURE)",
    )
    p.add_argument("--table", help="table id (without it, --bot-token: play every seat the lobby gives)")
    p.add_argument("--bot-token", help="an account's bot token: lobby mode")
    p.add_argument("--lists", type=int, help="in lobby mode, stop after this many tables")
    p.add_argument(
        "--accept-challenges",
        default="",
        help="in lobby mode, accept challenges from these accounts (comma-separated; * for anybody) and decline the others",
    )
    p.add_argument("--token", help="a seat token handed out elsewhere (skat arena, skat table create)")
    p.add_argument("--name", default="python-bot", help="the name shown at the table")
    p.add_argument("--seat", type=int, help="the seat to take when joining")
    p.add_argument("--seed", type=int, default=1, help="seed for tie-breaking")
    p.add_argument(
        "--on-illegal",
        choices=["fallback", "resign", "stop"],
        default="fallback",
        help="when the server refuses the bot's action as illegal: play the first legal action (default), resign, or stop",
    )
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO)
    try:
        server = ServerAddress(
            args.server, ca_file=args.ca_file, insecure=args.insecure, client_cert=args.client_cert, client_key=args.client_key
        )
        if args.table is None:
            if not args.bot_token:
                p.error("--table or --bot-token is needed")
            accept = [n for n in args.accept_challenges.split(",") if n]
            played = lobby(
                server, args.bot_token, lambda: JackBot(args.seed), args.lists,
                on_illegal=args.on_illegal, accept_challenges=accept,
            )
            print(f"lobby: {len(played)} tables played")
            for result in played:
                print(result)
            return
        seat = Seat.with_token(server, args.table, args.token) if args.token else Seat.join(server, args.table, args.name, args.seat)
        finished = play(seat, JackBot(args.seed), on_illegal=args.on_illegal)
    except (PlainTextRefused, ValueError) as e:
        sys.exit(f"skat_bot: {e}")
    except grpc.RpcError as e:
        why = errors.reason(e)
        if e.code() == grpc.StatusCode.UNAVAILABLE and why is None:
            sys.exit(f"skat_bot: cannot reach {args.server}: {e.details()}")
        sys.exit(f"skat_bot: the server refused: {e.details()}" + (f" ({why})" if why else ""))
    print(finished)


if __name__ == "__main__":
    main()
