"""Skat by the International Skat Order, from the same Rust engine the server runs, for
training agents.

- :class:`Table`: a list of deals at 3 or 4 seats dealt from a seed (the server deals the
  same cards from the same seed), stepped by action id, with the engine's legal actions,
  views, observations, Seeger-Fabian scores and ISS records.
- :class:`Batch`: many deals stepped in one call into numpy arrays, for self-play at scale.
- :func:`replay_iss`, :func:`examples_from_iss`: real game records in, re-scored exactly,
  and turned into (observation, mask, action, outcome) examples.
- :mod:`skat_engine.env`: a PettingZoo AEC environment (``pip install skat-engine[env]``).

The action space (``N_ACTIONS`` ids) and the observation (``OBS_LEN`` numbers, sections in
``LAYOUT``) are documented in ``docs/research.md``; :func:`action_name` names an id.
Illegal actions raise :class:`RuleError` with the engine's reason and change nothing.
"""

import json
from typing import Optional

import numpy as np

from ._native import (  # noqa: F401  (re-exported)
    IssError,
    LAYOUT,
    MAX_LEGAL,
    N_ACTIONS,
    OBS_LEN,
    Batch,
    RuleError,
    Table,
    action_name,
    examples_from_iss,
    replay_iss,
)

#: The 32 cards by index, as ISS writes them: suits D H S C, ranks 7 8 9 Q K T A J.
CARDS = tuple(s + r for s in "DHSC" for r in "789QKTAJ")

_SECTIONS = {name: (offset, length) for name, offset, length, _ in LAYOUT}


def section(observation: np.ndarray, name: str) -> np.ndarray:
    """The named section of an observation (or of a batch of them, along the last axis)."""
    offset, length = _SECTIONS[name]
    return observation[..., offset : offset + length]


def cards(observation: np.ndarray, name: str, part: int = 0) -> frozenset:
    """The cards (ISS codes) a 32-card section holds; ``part`` picks a relative position
    in the 3 x 32 sections (``played``, ``trick``)."""
    s = section(observation, name)[32 * part : 32 * part + 32]
    return frozenset(CARDS[i] for i in np.flatnonzero(s))


def view(table: Table, seat: Optional[int] = None) -> dict:
    """The engine's view of the current deal for ``seat`` (None: a spectator), as a dict."""
    return json.loads(table.view_json(seat))


__all__ = [
    "Batch",
    "CARDS",
    "IssError",
    "LAYOUT",
    "MAX_LEGAL",
    "N_ACTIONS",
    "OBS_LEN",
    "RuleError",
    "Table",
    "action_name",
    "cards",
    "examples_from_iss",
    "replay_iss",
    "section",
    "view",
]
