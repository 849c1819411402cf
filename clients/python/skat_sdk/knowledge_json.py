"""The knowledge in the form the Rust, Python and TypeScript SDKs share, as plain data
(``Knowledge.to_dict()``): the same keys and values as the Rust SDK's
``skat_sdk::knowledge::to_json`` and the TypeScript SDK's ``knowledge.toJSON()``.

Cards are ISS codes (``CJ``), a set sorted by card number and a trick in play order;
positions, phases, games and announcements are the proto's enum names without their
prefix, in lower case; absent values are ``None``.
"""

from typing import Dict, Iterable, List, Optional

from skat.v1 import skat_pb2 as pb

from .cards import Card, cards_sorted

_POSITIONS = {pb.POSITION_FOREHAND: "forehand", pb.POSITION_MIDDLEHAND: "middlehand", pb.POSITION_REARHAND: "rearhand"}
_PHASES = {
    pb.PHASE_BIDDING: "bidding",
    pb.PHASE_SKAT_DECISION: "skat_decision",
    pb.PHASE_DISCARDING: "discarding",
    pb.PHASE_DECLARING: "declaring",
    pb.PHASE_PLAYING: "playing",
    pb.PHASE_FINISHED: "finished",
}
_GAMES = {
    pb.GAME_TYPE_DIAMONDS: "diamonds",
    pb.GAME_TYPE_HEARTS: "hearts",
    pb.GAME_TYPE_SPADES: "spades",
    pb.GAME_TYPE_CLUBS: "clubs",
    pb.GAME_TYPE_GRAND: "grand",
    pb.GAME_TYPE_NULL: "null",
}
_ANNOUNCEMENTS = {
    pb.ANNOUNCEMENT_UNSPECIFIED: "none",
    pb.ANNOUNCEMENT_SCHNEIDER: "schneider",
    pb.ANNOUNCEMENT_SCHWARZ: "schwarz",
    pb.ANNOUNCEMENT_OUVERT: "ouvert",
}
_REASONS = {pb.FORFEIT_REASON_TIMEOUT: "timeout", pb.FORFEIT_REASON_LEFT: "left"}


def _cards(cards: Iterable[Card]) -> List[str]:
    return [str(c) for c in cards_sorted(cards)]


def _position(p) -> Optional[str]:
    return _POSITIONS.get(int(p)) if p is not None else None


def _contract(game: int, announcement: int) -> Dict:
    return {"game": _GAMES[game], "announcement": _ANNOUNCEMENTS[announcement]}


def _outcome(r: pb.DealResult) -> Dict:
    if r.passed_in:
        return {"kind": "passed_in"}
    if r.penalty:
        return {"kind": "penalty", "offender": _position(r.declarer), "reason": _REASONS[r.forfeit_reason], "value": r.value}
    out = {
        "kind": "game",
        "declarer": _position(r.declarer),
        "contract": _contract(r.contract.game, r.contract.announcement),
        "hand": r.contract.hand,
        "bid": r.bid,
        "matadors": r.matadors,
        "multiplier": r.multiplier,
        "value": r.value,
        "declarer_points": r.declarer_points,
        "declarer_tricks": r.declarer_tricks,
        "schneider": r.schneider,
        "schwarz": r.schwarz,
        "overbid": r.overbid,
        "won": r.won,
        "end": r.end,
    }
    if r.end == "forfeit":
        out["forfeited_by"] = _position(r.forfeited_by)
        out["forfeit_reason"] = _REASONS[r.forfeit_reason]
    return out


def _standing(s: pb.Standing) -> Dict:
    return {
        "seat": s.seat,
        "plain": s.plain,
        "seeger_fabian": s.seeger_fabian,
        "declared": s.declared,
        "won": s.won,
        "lost": s.lost,
        "declared_value": s.declared_value,
        "defended_won": s.defended_won,
        "penalties": s.penalties,
    }


def knowledge_dict(k) -> Dict:
    """``k`` (a :class:`~skat_sdk.Knowledge`) in the shared form."""
    auction = []
    for a in k.auction:
        call = {"position": _position(a.position), "call": a.call}
        if a.call == "bid":
            call["value"] = a.value
        auction.append(call)
    legal = k.legal
    return {
        "seat": k.seat,
        "frame": None if k.frame is None else {"number": k.frame.number, "dealer": k.frame.dealer, "seats": list(k.frame.seats)},
        "position": _position(k.position),
        "phase": _PHASES[int(k.phase)],
        "to_move": _position(k.to_move),
        "hand": _cards(k.hand),
        "hand_sizes": list(k.hand_sizes),
        "auction": auction,
        "bid": k.bid,
        "declarer": _position(k.declarer),
        "skat_picked_up": k.skat_picked_up,
        "skat": _cards(k.skat),
        "discards": _cards(k.discards),
        "contract": None if k.contract is None else _contract(k.contract.game, k.contract.announcement),
        "hand_game": k.hand_game,
        "open_hand": None if k.open_hand is None else _cards(k.open_hand),
        "current_trick": None
        if k.current_trick is None
        else {"leader": _position(k.current_trick.leader), "cards": [str(c) for c in k.current_trick.cards]},
        "tricks": [{"leader": _position(t.leader), "cards": [str(c) for c in t.cards], "winner": _position(t.winner)} for t in k.tricks],
        "claimed": k.claimed,
        "resigned": list(k.resigned),
        "dealt": None if k.dealt is None else {"hands": [_cards(h) for h in k.dealt.hands], "skat": _cards(k.dealt.skat)},
        "outcome": None if k.outcome is None else _outcome(k.outcome),
        "legal": {
            "bid_from": legal.bid_from,
            "hold": legal.hold,
            "pass": legal.pass_,
            "pick_up_skat": legal.pick_up_skat,
            "play_hand": legal.play_hand,
            "discard_from": _cards(legal.discard_from),
            "contracts": [_contract(c.game, c.announcement) for c in legal.contracts],
            "cards": _cards(legal.cards),
            "claim": legal.claim,
            "resign": legal.resign,
        },
        "final_standings": None if k.final_standings is None else [_standing(s) for s in k.final_standings],
        "game": None if k.game is None else _GAMES[k.game],
        "is_declarer": k.is_declarer,
        "played": _cards(k.played),
        "cards_out": _cards(k.cards_out),
        "cannot_hold": [_cards(s) for s in k.cannot_hold],
    }
