"""The example bot of the Python SDK (``python -m skat_bot``): ``JackBot`` in
``skat_bot.strategy``, played with ``skat_sdk.join_and_play``."""

from .strategy import JackBot  # noqa: F401
