"""A PettingZoo AEC environment of Skat lists on the engine's exact rules.

Why AEC (agent environment cycle) and not Gymnasium or PettingZoo's parallel API: Skat is
turn-based with a changing order (the auction's pairs, the declarer's skat, the trick's
leader), which AEC expresses directly; Gymnasium is single-agent, and a parallel API
would ask every seat every step. One episode is a list of ``deals`` deals (1 by default)
at ``seats`` seats; each agent ``seat_K`` observes a dict of ``observation`` (float32,
``OBS_LEN``: what that seat knows, never a hidden card) and ``action_mask`` (int8,
``N_ACTIONS``). The reward, given to every seat when a deal ends, is that seat's
Seeger-Fabian points for the deal (the list scoring the server uses; at four seats the
dealer who sits out scores too). An illegal action raises :class:`skat_engine.RuleError`
and changes nothing.

    from skat_engine.env import SkatEnv
    env = SkatEnv(seats=3, deals=1)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(obs)
        env.step(action)
"""

from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import N_ACTIONS, OBS_LEN, Table, action_name, view


def env(**kwargs) -> "SkatEnv":
    """The environment (PettingZoo's usual entry point)."""
    return SkatEnv(**kwargs)


class SkatEnv(AECEnv):
    """Skat lists for ``seats`` (3 or 4) agents, ``deals`` deals per episode."""

    metadata = {"render_modes": ["ansi"], "name": "skat_v0", "is_parallelizable": False}

    def __init__(self, seats: int = 3, deals: int = 1, render_mode: Optional[str] = None):
        super().__init__()
        if seats not in (3, 4):
            raise ValueError(f"a table has 3 or 4 seats, not {seats}")
        if deals < 1:
            raise ValueError("an episode needs at least one deal")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.seats, self.deals, self.render_mode = seats, deals, render_mode
        self.possible_agents = [f"seat_{k}" for k in range(seats)]
        self._index = {a: k for k, a in enumerate(self.possible_agents)}
        space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_LEN,), np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.table: Optional[Table] = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        # The table's seed: the cards of every deal follow from it, as on the server.
        self.table = Table(self.seats, self.deals, int(self._rng.integers(0, 2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.table.to_move]

    def observe(self, agent: str) -> dict:
        k = self._index[agent]
        return {"observation": self.table.observe(k), "action_mask": self.table.mask(k).astype(np.int8)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        points = self.table.step(int(action))
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        if points is not None:
            for a in self.agents:
                self.rewards[a] = points[self._index[a]]
        if self.table.is_over:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[self.table.to_move]
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        """``ansi``: the deal as a spectator sees it, in one line."""
        if self.render_mode is None or self.table is None:
            return None
        v = view(self.table)
        trick = v.get("current_trick") or {}
        return f"deal {self.table.deal_number + 1}/{self.deals} {v['phase']} bid {v.get('bid')} trick {trick.get('cards', [])}"

    def close(self) -> None:
        pass

    @staticmethod
    def action_name(action: int) -> str:
        """The action an id stands for (``play CJ``, ``bid 18``)."""
        return action_name(action)
