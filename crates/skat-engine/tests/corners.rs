//! The corners of the rules, one test each.

use Position::*;
use skat_engine::score::valuation;
use skat_engine::{
    Action, Announcement, Bid, CardSet, Contract, Deal, Dealt, GameType, Outcome, Position, RuleError,
};

fn bid(v: u16) -> Bid {
    Bid::new(v).unwrap()
}

fn set(s: &str) -> CardSet {
    s.parse().unwrap()
}

fn contract(game: GameType, announcement: Announcement) -> Contract {
    Contract { game, announcement }
}

/// Forehand holds both black jacks, the skat holds the red ones.
fn deal_with_jacks_in_skat() -> Dealt {
    Dealt::new(
        [
            set("CJ.SJ.CA.CT.CK.CQ.C9.C8.C7.SA"),
            set("ST.SK.SQ.S9.S8.S7.HA.HT.HK.HQ"),
            set("H9.H8.H7.DA.DT.DK.DQ.D9.D8.D7"),
        ],
        set("HJ.DJ"),
    )
    .unwrap()
}

/// Middlehand and rearhand pass, forehand opens at `value`.
fn forehand_declares_at(dealt: Dealt, value: u16) -> Deal {
    let mut deal = Deal::new(dealt);
    deal.apply(Middlehand, Action::Pass).unwrap();
    deal.apply(Rearhand, Action::Pass).unwrap();
    deal.apply(Forehand, Action::Bid { value: bid(value) }).unwrap();
    deal
}

#[test]
fn overbid_is_raised_to_the_lowest_multiple_of_the_base_value() {
    // Bid 30, clubs with 1 (value 24): lost, valued 36, scored −72, whatever the cards.
    let v = valuation(Contract::plain(GameType::Clubs), false, 1, bid(30), 80, 8);
    assert!(v.overbid);
    assert!(!v.won);
    assert_eq!(v.value, 36);
    // A schneider reached lifts the value over the bid: no overbid.
    let v = valuation(Contract::plain(GameType::Clubs), false, 1, bid(30), 95, 9);
    assert!(!v.overbid);
    assert!(v.won);
    assert_eq!(v.value, 36);
    // Grand with 1 against a bid of 50: 48 raised to 72.
    let v = valuation(Contract::plain(GameType::Grand), false, 1, bid(50), 70, 6);
    assert_eq!((v.overbid, v.value), (true, 72));
}

#[test]
fn matadors_count_the_skat_in_a_hand_game() {
    let mut deal = forehand_declares_at(deal_with_jacks_in_skat(), 18);
    deal.apply(Forehand, Action::PlayHand).unwrap();
    deal.apply(Forehand, Action::Declare { contract: Contract::plain(GameType::Clubs) }).unwrap();
    deal.apply(Forehand, Action::Resign).unwrap();
    let Some(Outcome::Game(g)) = deal.outcome() else { panic!("a game") };
    // CJ SJ in hand, HJ DJ in the untouched skat, then CA CT CK CQ C9 C8 C7: with 11.
    assert_eq!(g.matadors, 11);
    assert!(g.hand);
}

#[test]
fn matadors_count_the_skat_even_when_discarded() {
    let mut deal = forehand_declares_at(deal_with_jacks_in_skat(), 18);
    deal.apply(Forehand, Action::PickUpSkat).unwrap();
    assert_eq!(deal.hand(Forehand).len(), 12);
    deal.apply(Forehand, Action::Discard { cards: set("HJ.DJ") }).unwrap();
    deal.apply(Forehand, Action::Declare { contract: Contract::plain(GameType::Grand) }).unwrap();
    deal.apply(Forehand, Action::Resign).unwrap();
    let Some(Outcome::Game(g)) = deal.outcome() else { panic!("a game") };
    assert_eq!(g.matadors, 4);
    // The discards are the declarer's: 4 points, all the declarer has after resigning.
    assert_eq!(g.declarer_points, 4);
}

#[test]
fn declarer_schneidered_and_schwarz() {
    // 25 points: lost, schneider counts against the declarer.
    let v = valuation(Contract::plain(GameType::Spades), false, -1, bid(18), 25, 2);
    assert!(v.schneider && !v.schwarz && !v.won);
    assert_eq!(v.multiplier, 3);
    assert_eq!(v.value, 33);
    // No trick at all: schwarz too.
    let v = valuation(Contract::plain(GameType::Spades), false, -1, bid(18), 4, 0);
    assert!(v.schneider && v.schwarz && !v.won);
    assert_eq!(v.multiplier, 4);
}

#[test]
fn schwarz_is_by_tricks_not_points() {
    // The declarer took one trick of 7, 8 and 9: 0 points, yet not schwarz.
    let v = valuation(Contract::plain(GameType::Hearts), false, 2, bid(18), 0, 1);
    assert!(v.schneider);
    assert!(!v.schwarz);
    // The defenders took one trick of 0 points: the declarer has 120 points but no schwarz.
    let v = valuation(Contract::plain(GameType::Hearts), false, 2, bid(18), 120, 9);
    assert!(v.schneider && !v.schwarz && v.won);
    assert_eq!(v.multiplier, 4);
}

#[test]
fn ouvert_implies_every_announcement() {
    // Grand ouvert with 1: 1 + game + hand + schneider + announced + schwarz + announced
    // + ouvert = 8, 192 (as ISS scored game 4912814... in the conformance records).
    let v = valuation(contract(GameType::Grand, Announcement::Ouvert), true, 1, bid(18), 120, 10);
    assert_eq!((v.multiplier, v.value, v.won), (8, 192, true));
    // Missing a single trick loses it, with all levels counted.
    let v = valuation(contract(GameType::Grand, Announcement::Ouvert), true, 1, bid(18), 115, 9);
    assert_eq!((v.multiplier, v.won), (8, false));
    // Schneider announced, grand hand with 3: 3 + 1 + hand + schneider + announced = 7.
    let v = valuation(contract(GameType::Grand, Announcement::Schneider), true, 3, bid(18), 95, 8);
    assert_eq!((v.multiplier, v.value, v.won), (7, 168, true));
    // Schneider announced but only 85 points: lost.
    let v = valuation(contract(GameType::Grand, Announcement::Schneider), true, 3, bid(18), 85, 8);
    assert!(!v.won);
}

#[test]
fn the_four_null_values_and_their_losses() {
    let null = Contract::plain(GameType::Null);
    let ouvert = contract(GameType::Null, Announcement::Ouvert);
    assert_eq!(null.null_value(false), Some(23));
    assert_eq!(null.null_value(true), Some(35));
    assert_eq!(ouvert.null_value(false), Some(46));
    assert_eq!(ouvert.null_value(true), Some(59));

    // A null lost by taking a trick scores −2 × its value.
    for (hand, ann, value) in [
        (false, Announcement::None, 23),
        (true, Announcement::None, 35),
        (false, Announcement::Ouvert, 46),
        (true, Announcement::Ouvert, 59),
    ] {
        let mut deal = forehand_declares_at(deal_with_jacks_in_skat(), 18);
        if hand {
            deal.apply(Forehand, Action::PlayHand).unwrap();
        } else {
            deal.apply(Forehand, Action::PickUpSkat).unwrap();
            deal.apply(Forehand, Action::Discard { cards: set("HJ.DJ") }).unwrap();
        }
        deal.apply(Forehand, Action::Declare { contract: contract(GameType::Null, ann) }).unwrap();
        // Forehand leads the club ace; nobody else holds a club: the declarer takes it.
        for (p, c) in [(Forehand, "CA"), (Middlehand, "ST"), (Rearhand, "H9")] {
            deal.apply(p, Action::Play { card: c.parse().unwrap() }).unwrap();
        }
        let Some(Outcome::Game(g)) = deal.outcome() else { panic!("a game") };
        assert!(!g.won);
        assert_eq!(g.value, value);
        assert_eq!(g.score(), -2 * value as i32);
        assert_eq!(g.matadors, 0);
        assert_eq!(g.declarer_tricks, 1);
    }
}

#[test]
fn a_null_below_the_bid_is_refused() {
    let mut deal = forehand_declares_at(deal_with_jacks_in_skat(), 24);
    deal.apply(Forehand, Action::PickUpSkat).unwrap();
    deal.apply(Forehand, Action::Discard { cards: set("HJ.DJ") }).unwrap();
    let before = deal.clone();
    let err = deal.apply(Forehand, Action::Declare { contract: Contract::plain(GameType::Null) });
    assert_eq!(err, Err(RuleError::NullBelowBid { value: 23, bid: bid(24) }));
    assert_eq!(deal, before);
    // Null ouvert (46) reaches 24.
    deal.apply(Forehand, Action::Declare { contract: contract(GameType::Null, Announcement::Ouvert) })
        .unwrap();
}

#[test]
fn illegal_combinations_are_refused() {
    let mut picked = forehand_declares_at(deal_with_jacks_in_skat(), 18);
    picked.apply(Forehand, Action::PickUpSkat).unwrap();
    picked.apply(Forehand, Action::Discard { cards: set("HJ.DJ") }).unwrap();
    for ann in [Announcement::Schneider, Announcement::Schwarz, Announcement::Ouvert] {
        let err =
            picked.clone().apply(Forehand, Action::Declare { contract: contract(GameType::Spades, ann) });
        assert_eq!(err, Err(RuleError::AnnouncementNeedsHand));
    }
    let mut hand = forehand_declares_at(deal_with_jacks_in_skat(), 18);
    hand.apply(Forehand, Action::PlayHand).unwrap();
    // No discard in a hand game.
    let err = hand.clone().apply(Forehand, Action::Discard { cards: set("CA.CT") });
    assert!(matches!(err, Err(RuleError::WrongPhase { .. })));
    let err = hand
        .clone()
        .apply(Forehand, Action::Declare { contract: contract(GameType::Null, Announcement::Schneider) });
    assert_eq!(err, Err(RuleError::NullAnnouncement));
    // Only the declarer declares.
    let err = hand.clone().apply(Middlehand, Action::Declare { contract: Contract::plain(GameType::Grand) });
    assert!(matches!(err, Err(RuleError::NotDeclarer { .. })));
    hand.apply(Forehand, Action::Declare { contract: Contract::plain(GameType::Grand) }).unwrap();
    let err = hand.clone().apply(Middlehand, Action::Play { card: "ST".parse().unwrap() });
    assert!(matches!(err, Err(RuleError::NotYourTurn { .. })));
    // Forehand leads SA; middlehand holds spades and must follow; the jack of spades is
    // a trump in grand, so forehand's SJ would not have counted as a spade either.
    hand.apply(Forehand, Action::Play { card: "SA".parse().unwrap() }).unwrap();
    let before = hand.clone();
    let err = hand.apply(Middlehand, Action::Play { card: "HA".parse().unwrap() });
    assert_eq!(err, Err(RuleError::MustFollowSuit { led: "spades" }));
    assert_eq!(hand, before);
    let err = hand.apply(Middlehand, Action::Play { card: "CA".parse().unwrap() });
    assert!(matches!(err, Err(RuleError::NotInHand { .. })));
}

#[test]
fn schwarz_announced_ends_when_the_defenders_take_a_trick() {
    let mut deal = forehand_declares_at(deal_with_jacks_in_skat(), 18);
    deal.apply(Forehand, Action::PlayHand).unwrap();
    deal.apply(Forehand, Action::Declare { contract: contract(GameType::Spades, Announcement::Schwarz) })
        .unwrap();
    // Forehand leads the club ace (a plain suit in spades); middlehand trumps with S7.
    for (p, c) in [(Forehand, "CA"), (Middlehand, "S7"), (Rearhand, "H9")] {
        deal.apply(p, Action::Play { card: c.parse().unwrap() }).unwrap();
    }
    let Some(Outcome::Game(g)) = deal.outcome() else { panic!("ended") };
    assert!(!g.won);
    assert_eq!(g.end, skat_engine::DealEnd::DefendersTookTrick);
    // Spades: CJ SJ in hand, HJ DJ in the skat, SA in hand, ST elsewhere: with 5.
    // 5 + game + hand + schneider, announced + schwarz, announced = 11: 121, lost −242.
    assert_eq!(g.matadors, 5);
    assert_eq!(g.multiplier, 11);
    assert_eq!(g.score(), -242);
}

#[test]
fn seeger_fabian_at_three_and_four_seats() {
    let mut deal = forehand_declares_at(deal_with_jacks_in_skat(), 18);
    deal.apply(Forehand, Action::PlayHand).unwrap();
    deal.apply(Forehand, Action::Declare { contract: Contract::plain(GameType::Clubs) }).unwrap();
    let mut lost = deal.clone();
    lost.apply(Forehand, Action::Resign).unwrap();
    let Some(out) = lost.outcome() else { panic!() };
    let Outcome::Game(g) = out else { panic!() };
    assert!(!g.won);
    let v = g.value as i32;
    assert_eq!(out.seeger_fabian(3), ([-2 * v - 50, 40, 40], 0));
    assert_eq!(out.seeger_fabian(4), ([-2 * v - 50, 30, 30], 30));
    assert_eq!(out.plain_scores(), [-2 * v, 0, 0]);

    let mut won = deal.clone();
    won.apply(Middlehand, Action::Resign).unwrap();
    assert!(!won.is_finished(), "one defender alone cannot concede");
    won.apply(Rearhand, Action::Resign).unwrap();
    let Some(out) = won.outcome() else { panic!() };
    let Outcome::Game(g) = out else { panic!() };
    assert!(g.won && g.schwarz && g.declarer_tricks == 10);
    let v = g.value as i32;
    assert_eq!(out.seeger_fabian(3), ([v + 50, 0, 0], 0));
    assert_eq!(out.seeger_fabian(4), ([v + 50, 0, 0], 0));
}

#[test]
fn a_forfeit_before_the_declaration_is_a_penalty_at_the_bid() {
    let mut deal = Deal::new(deal_with_jacks_in_skat());
    deal.apply(Middlehand, Action::Bid { value: bid(30) }).unwrap();
    deal.apply(Forehand, Action::Forfeit { reason: skat_engine::ForfeitReason::Timeout }).unwrap();
    let Some(Outcome::Penalty(p)) = deal.outcome() else { panic!("penalty") };
    assert_eq!((p.offender, p.value), (Forehand, 30));
    assert_eq!(Outcome::Penalty(p).plain_scores(), [-60, 0, 0]);
    assert_eq!(Outcome::Penalty(p).seeger_fabian(3), ([-110, 40, 40], 0));
}
