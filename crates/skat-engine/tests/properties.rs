//! Property tests over random deals played by random legal players.

use proptest::prelude::*;
use skat_engine::iss::{self, IssRecord, RecordMeta};
use skat_engine::random::RandomPlayer;
use skat_engine::record::Move;
use skat_engine::{
    Action, Announcement, Bid, Card, CardSet, Contract, Deal, DealRecord, Dealt, ForfeitReason, GameType,
    Outcome, Phase, Position,
};

/// Plays a deal to the end, calling `each` on every state before a move.
fn play(seed: u64, deal_no: u64, mut each: impl FnMut(&Deal)) -> (Deal, Vec<Move>) {
    let mut deal = Deal::new(Dealt::seeded(seed, deal_no));
    let mut player = RandomPlayer::new(seed ^ 0x5eed);
    let mut moves = Vec::new();
    let mut steps = 0;
    while let Some(p) = deal.to_move() {
        each(&deal);
        let action = player.choose(&deal, p);
        deal.apply(p, action).expect("random player picks legal actions");
        moves.push(Move { position: p, action });
        steps += 1;
        assert!(steps < 250, "a deal must end");
    }
    each(&deal);
    (deal, moves)
}

/// Every action worth trying in some state: each is either legal or refused.
fn candidate_actions(deal: &Deal) -> Vec<Action> {
    let mut v =
        vec![Action::Hold, Action::Pass, Action::PickUpSkat, Action::PlayHand, Action::Claim, Action::Resign];
    for i in [0usize, 1, 2, 5, 30, 62] {
        v.push(Action::Bid { value: Bid::from_ladder_index(i).unwrap() });
    }
    if let Some(b) = deal.bid() {
        v.push(Action::Bid { value: b });
        if let Some(n) = b.next() {
            v.push(Action::Bid { value: n });
        }
    }
    v.extend(Contract::all().map(|contract| Action::Declare { contract }));
    v.extend(Card::all().map(|card| Action::Play { card }));
    let cards: Vec<Card> = Card::all().collect();
    for (i, a) in cards.iter().enumerate().step_by(3) {
        for b in cards.iter().skip(i + 1).step_by(5) {
            v.push(Action::Discard { cards: CardSet::single(*a).with(*b) });
        }
    }
    v.push(Action::Discard { cards: CardSet::EMPTY });
    v.push(Action::Discard { cards: deal.hand(Position::Forehand) });
    v
}

/// What the rules let `viewer` see, computed here from the rules text, independently of
/// the engine's own `visible_cards`: own hand; the skat and discards for the declarer
/// after the pickup; the declarer's hand when ouvert or claimed; played cards; all at the end.
fn allowed(deal: &Deal, viewer: Option<Position>) -> CardSet {
    if deal.phase() == Phase::Finished {
        return CardSet::DECK;
    }
    let mut ok = CardSet::EMPTY;
    for t in deal.tricks() {
        ok |= t.card_set();
    }
    ok |= deal.current_trick().card_set();
    if let Some(v) = viewer {
        ok |= deal.hand(v);
        if deal.declarer() == Some(v) && deal.skat_picked_up() {
            ok |= deal.dealt().skat | deal.discards();
        }
    }
    if let (Some(d), Some(c)) = (deal.declarer(), deal.contract())
        && (c.announcement == Announcement::Ouvert || deal.claimed())
    {
        ok |= deal.hand(d);
    }
    ok
}

/// Every card code in a JSON text.
fn cards_in_text(text: &str) -> CardSet {
    let b = text.as_bytes();
    let mut set = CardSet::EMPTY;
    for i in 0..b.len().saturating_sub(3) {
        if b[i] == b'"'
            && b[i + 3] == b'"'
            && let Ok(c) = text[i + 1..i + 3].parse::<Card>()
        {
            set.insert(c);
        }
    }
    set
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_game_has_120_card_points(seed in any::<u64>(), n in 0u64..1000) {
        let (deal, _) = play(seed, n, |_| {});
        if let Some(Outcome::Game(g)) = deal.outcome() {
            let (decl, def) = deal.won_cards();
            let skat = if g.hand { deal.dealt().skat } else { deal.discards() };
            prop_assert!((decl & def).is_empty());
            prop_assert_eq!((decl | def | skat).len(), 32);
            prop_assert_eq!((decl | skat).points() + def.points(), 120);
            prop_assert_eq!(u32::from(g.declarer_points), (decl | skat).points());
        }
    }

    #[test]
    fn the_seat_to_move_always_has_a_legal_action(seed in any::<u64>(), n in 0u64..1000) {
        play(seed, n, |deal| {
            if let Some(p) = deal.to_move() {
                assert!(deal.legal_actions(p).has_turn(), "{p} has no legal action in {:?}", deal.phase());
                for q in Position::ALL.into_iter().filter(|q| *q != p) {
                    assert!(!deal.legal_actions(q).has_turn(), "{q} may act out of turn");
                }
            } else {
                assert!(deal.is_finished());
            }
        });
    }

    #[test]
    fn legal_actions_agree_with_apply_and_refusals_change_nothing(seed in any::<u64>(), n in 0u64..1000) {
        play(seed, n, |deal| {
            for p in Position::ALL {
                let legal = deal.legal_actions(p);
                for action in candidate_actions(deal) {
                    let mut copy = deal.clone();
                    let result = copy.apply(p, action);
                    assert_eq!(legal.allows(action), result.is_ok(), "{p} {action:?} in {:?}: {result:?}", deal.phase());
                    if result.is_err() {
                        assert_eq!(&copy, deal, "a refused action changed the deal");
                    }
                }
            }
        });
    }

    #[test]
    fn no_view_shows_a_card_its_seat_may_not_see(seed in any::<u64>(), n in 0u64..1000) {
        play(seed, n, |deal| {
            for viewer in [None, Some(Position::Forehand), Some(Position::Middlehand), Some(Position::Rearhand)] {
                let ok = allowed(deal, viewer);
                let view = deal.view(viewer);
                let named = view.named_cards();
                assert!(ok.contains_all(named), "{viewer:?} sees {}", named - ok);
                // Adversarially: every card code anywhere in the serialized view.
                let text = serde_json::to_string(&view).unwrap();
                let in_text = cards_in_text(&text);
                assert!(ok.contains_all(in_text), "{viewer:?} view text names {}", in_text - ok);
                assert_eq!(deal.visible_cards(viewer) | ok, ok);
            }
        });
    }

    #[test]
    fn selfplay_iss_records_round_trip(seed in any::<u64>(), n in 0u64..1000) {
        let (deal, moves) = play(seed, n, |_| {});
        let outcome = deal.outcome().unwrap();
        let record = DealRecord { number: n as u32, seed: Some(seed), seats: [0, 1, 2].map(skat_engine::Seat::new), dealer: skat_engine::Seat::new(2), dealt: *deal.dealt(), moves: moves.clone(), outcome };
        let text = iss::write(&record, &RecordMeta::default());
        let parsed = IssRecord::parse(&text).unwrap();
        let replay = iss::replay(&parsed).unwrap();
        prop_assert_eq!(replay.outcome, outcome);
        prop_assert_eq!(replay.moves, moves);
        prop_assert_eq!(parsed.result(), Some(iss::IssResult::from_outcome(&outcome)));
        // And the JSON record round-trips too.
        let json = serde_json::to_string(&record).unwrap();
        let back: DealRecord = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &record);
        prop_assert_eq!(back.replay().unwrap().outcome(), Some(outcome));
    }

    #[test]
    fn forfeits_end_the_deal_at_any_point(seed in any::<u64>(), n in 0u64..200, cut in 0usize..60) {
        let (_, moves) = play(seed, n, |_| {});
        let mut deal = Deal::new(Dealt::seeded(seed, n));
        for m in moves.iter().take(cut) {
            deal.apply(m.position, m.action).unwrap();
        }
        if let Some(p) = deal.to_move() {
            deal.apply(p, Action::Forfeit { reason: ForfeitReason::Timeout }).unwrap();
            prop_assert!(deal.is_finished());
            match deal.outcome().unwrap() {
                Outcome::Penalty(pen) => {
                    prop_assert!(deal.contract().is_none());
                    prop_assert_eq!(pen.offender, p);
                }
                Outcome::Game(g) => {
                    if g.contract.game == GameType::Null {
                        // Null is lost by the declarer giving up, won by a defender giving up.
                        prop_assert_eq!(g.won, g.declarer != p);
                    } else if g.declarer != p {
                        // The remaining tricks went to the declarer.
                        prop_assert_eq!(g.declarer_tricks as usize, 10 - deal.tricks().iter().filter(|t| t.winner(g.contract.game) != Some(g.declarer)).count());
                    }
                    let (decl, def) = deal.won_cards();
                    let skat = if g.hand { deal.dealt().skat } else { deal.discards() };
                    prop_assert_eq!((decl | def | skat).len(), 32);
                }
                Outcome::PassedIn => prop_assert!(false, "a forfeit is not a pass"),
            }
        }
    }
}
