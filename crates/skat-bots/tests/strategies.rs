//! Every built-in strategy, by the name `skat bot` and `skat arena` know it, plays whole
//! deals to their end with legal actions, and the same seed gives the same game.

use skat_bot_api::decide;
use skat_bots::Strategy;
use skat_engine::seat_view::DealFrame;
use skat_engine::{Action, Deal, Dealt, GameType, Seat, SeatView};

/// Plays deal `d` with `name` at forehand and two heuristic bots; every action, in order.
fn play(name: &str, seed: u64, d: u64) -> Vec<String> {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let mut bots = [
        Strategy::by_name(name, seed).expect("a built-in name"),
        Strategy::by_name("heuristic", 0).expect("heuristic"),
        Strategy::by_name("heuristic", 0).expect("heuristic"),
    ];
    let mut deal = Deal::new(Dealt::seeded(41, d));
    let frame = DealFrame { number: d as u32, dealer: Seat::new(2), seats: [0, 1, 2].map(Seat::new) };
    let mut actions = Vec::new();
    while let Some(p) = deal.to_move() {
        let k = SeatView::from_view(Some(Seat::new(p.index() as u8)), frame, deal.view(Some(p)));
        let action = runtime.block_on(decide(&mut bots[p.index()], &k)).expect("an action");
        actions.push(format!("{action:?}"));
        deal.apply(p, action).unwrap_or_else(|e| panic!("{name} made an illegal move: {e:?}"));
    }
    assert!(deal.outcome().is_some(), "{name}: the deal ends");
    actions
}

#[test]
fn every_built_in_strategy_plays_whole_deals() {
    for name in skat_bots::NAMES {
        for d in 0..4 {
            assert!(!play(name, 7, d).is_empty());
        }
    }
    assert!(Strategy::by_name("pimc-turbo", 1).is_none(), "an unknown name is refused");
    // The ladder is built of strategies that exist, weakest first.
    for level in skat_bots::LADDER {
        assert!(skat_bots::NAMES.contains(&level), "{level}");
    }
    // The page marks the house bots of the same ladder (web/src/ladder.ts).
    let page = include_str!("../../../web/src/ladder.ts");
    let listed = format!("[{}]", skat_bots::LADDER.map(|l| format!("\"{l}\"")).join(", "));
    assert!(page.contains(&listed), "web/src/ladder.ts lists the ladder {listed}");
}

#[test]
fn pimc_with_and_without_the_auction_is_deterministic_for_a_seed() {
    for name in ["pimc", "pimc-fast", "pimc-plain", "pimc-bold", "pimc-sim"] {
        for d in 0..3 {
            assert_eq!(play(name, 5, d), play(name, 5, d), "{name}, deal {d}");
        }
    }
}

#[test]
fn pimc_takes_its_settings_after_colons_and_refuses_bad_ones() {
    // A small PIMC plays whole deals too.
    for d in 0..2 {
        assert!(!play("pimc:samples=4:nodes=20000:evidence=off", 3, d).is_empty());
        assert!(
            !play("pimc-sim:samples=4:nodes=20000:choicenodes=100000:lift=50:floor=90:suithand=on", 3, d)
                .is_empty()
        );
    }
    for (bad, says) in [
        ("pimc:samples=0", "samples"),
        ("pimc:samples=2000", "samples"),
        ("pimc:nodes=lots", "nodes"),
        ("pimc:evidence=maybe", "evidence"),
        ("pimc:depth=3", "unknown pimc setting"),
        ("pimc:bold=500", "bold"),
        ("pimc-sim:lift=900", "lift"),
        ("pimc-sim:floor=120", "floor"),
        ("pimc-sim:suithand=yes", "suithand"),
        ("pimc-sim:choicenodes=5", "choicenodes"),
        ("pimc:samples", "KEY=VALUE"),
        ("heuristic:samples=3", "takes no settings"),
        ("alphazero", "unknown strategy"),
    ] {
        let err = Strategy::parse(bad, 1).err().unwrap_or_else(|| panic!("`{bad}` is refused"));
        assert!(err.contains(says), "`{bad}`: {err}");
    }
}

/// `pimc-sim` at forehand with `hand`, two heuristic bots with the rest: every action.
fn sim_plays(hand: &str, others: [&str; 2], skat: &str) -> Vec<Action> {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let cards = |s: &str| s.parse::<skat_engine::CardSet>().expect("cards");
    let dealt = Dealt::new([cards(hand), cards(others[0]), cards(others[1])], cards(skat)).expect("a deal");
    let mut bots = [
        Strategy::by_name("pimc-sim", 1).expect("pimc-sim"),
        Strategy::by_name("heuristic", 0).expect("heuristic"),
        Strategy::by_name("heuristic", 0).expect("heuristic"),
    ];
    let mut deal = Deal::new(dealt);
    let frame = DealFrame { number: 0, dealer: Seat::new(2), seats: [0, 1, 2].map(Seat::new) };
    let mut actions = Vec::new();
    while let Some(p) = deal.to_move() {
        let k = SeatView::from_view(Some(Seat::new(p.index() as u8)), frame, deal.view(Some(p)));
        let action = runtime.block_on(decide(&mut bots[p.index()], &k)).expect("an action");
        if p.index() == 0 {
            actions.push(action);
        }
        deal.apply(p, action).unwrap_or_else(|e| panic!("an illegal move: {e:?}"));
    }
    actions
}

#[test]
fn pimc_sim_plays_a_grand_hand_and_a_null_where_they_pay() {
    // Four jacks, the black aces and tens: a grand hand (the skat is not taken).
    let actions = sim_plays(
        "CJ.SJ.HJ.DJ.CA.CT.SA.ST.HA.HK",
        ["C7.C8.C9.S7.S8.S9.H7.H8.H9.D7", "CK.CQ.SK.SQ.HQ.HT.DA.DT.DK.DQ"],
        "D8.D9",
    );
    assert!(actions.contains(&Action::PlayHand), "{actions:?}");
    assert!(
        actions.iter().any(|a| matches!(a, Action::Declare { contract } if contract.game == GameType::Grand)),
        "{actions:?}"
    );
    // Sevens to nines in every suit: a null no defender can force.
    let actions = sim_plays(
        "C7.C8.C9.S7.S8.S9.H7.H8.D7.D8",
        ["CJ.CA.CT.SK.SQ.HT.HK.DA.DQ.D9", "SJ.HJ.CK.CQ.SA.ST.HQ.H9.DT.DK"],
        "DJ.HA",
    );
    let declared = actions.iter().find_map(|a| match a {
        Action::Declare { contract } => Some(*contract),
        _ => None,
    });
    assert!(declared.is_some_and(|c| c.game == GameType::Null), "{actions:?}");
}
