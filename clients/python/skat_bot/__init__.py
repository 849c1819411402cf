"""A Skat bot for the open Skat server, talking plain gRPC.

`skat_bot.client.play` joins a table (or uses a seat token), follows the table's stream
and answers whenever an event carries the seat's legal actions; `skat_bot.strategy`
holds the decisions, a little smarter than random.
"""

from .cards import Card  # noqa: F401
from .client import play  # noqa: F401
