//! The bidding and the game judged: for a finished deal, each player's highest bid against
//! what its ten cards were worth, and the declarer's choice (hand or pick-up, what it put
//! away, what it declared) against the best option it had, all by the same simulation
//! `pimc-sim` chooses its games with ([`crate::choice`]).
//!
//! | figure | what | what it cannot say |
//! |---|---|---|
//! | `worth` | the highest value a player's ten cards were worth bidding to: the most valuable option (pick-up or hand, null open) with a positive expected result | the estimate is the chooser's, whose card play is double-dummy in its worlds and whose suit and grand chances lean on a fitted model |
//! | `expected` | an option's expected Seeger-Fabian result as declarer (won +v+50, lost −2v−50) | schneider and schwarz are not counted |
//! | `loss`, `interval` | the best option's expected result less the one made, with a 95% interval from the worlds' binomial spread | options judged on different worlds: the interval is wide with 20 worlds |
//!
//! Only options that reach the bid are compared (the declarer must reach it); the made
//! option is judged with the cards it really put away. A bid is `overbid` when it is above
//! what the cards were worth, whatever the game then did: a bot that bid 44 on a weak hand
//! sees it even when the cards lay well.

use serde_json::{Value, json};
use skat_engine::record::Move;
use skat_engine::{Action, CardSet, DealRecord, Outcome, Position};

use crate::choice::{Choice, ChoiceConfig, Chooser, Judged, best, bid_limit};

/// One player's bidding judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BidVerdict {
    /// Who.
    pub position: Position,
    /// The highest value it said or held.
    pub bid: u16,
    /// What its ten cards were worth bidding to (0: pass).
    pub worth: u16,
}

/// The declarer's choice judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChoiceVerdict {
    /// The option played, judged.
    pub made: Judged,
    /// The best option that reached the bid, judged.
    pub best: Judged,
    /// `best.expected − made.expected` (≥ 0), and half its 95% interval.
    pub loss: f64,
    /// Half the width of the loss's 95% interval.
    pub half_width: f64,
}

/// Every bidder's bid and the declarer's choice in `record` (no choice: passed in, or a
/// penalty before the declaration).
pub fn judge(
    record: &DealRecord,
    config: ChoiceConfig,
    seed: u64,
) -> (Vec<BidVerdict>, Option<ChoiceVerdict>) {
    let chooser = Chooser::new(seed, config);
    let bids = highest_bids(&record.moves);
    let verdicts = Position::ALL
        .into_iter()
        .filter(|p| bids[p.index()] > 0)
        .map(|p| {
            let worth = bid_limit(&chooser.before_skat(record.dealt.hand(p), p));
            BidVerdict { position: p, bid: bids[p.index()], worth }
        })
        .collect();
    (verdicts, declaration(record, &chooser))
}

/// Per position, the highest value it said or held (0: none).
fn highest_bids(moves: &[Move]) -> [u16; 3] {
    let mut highest = [0u16; 3];
    let mut said = 0u16;
    for m in moves {
        match m.action {
            Action::Bid { value } => {
                said = value.value();
                highest[m.position.index()] = said;
            }
            Action::Hold => highest[m.position.index()] = said,
            _ => {}
        }
    }
    highest
}

fn declaration(record: &DealRecord, chooser: &Chooser) -> Option<ChoiceVerdict> {
    let Outcome::Game(g) = &record.outcome else { return None };
    let me = g.declarer;
    let bid = g.bid.value();
    let dealt = record.dealt.hand(me);
    let made_choice = Choice { game: g.contract.game, hand: g.hand, open: g.contract.ouvert() };
    // Before the skat: the hand options and the pick-ups, those reaching the bid.
    let before: Vec<Judged> = chooser.before_skat(dealt, me).into_iter().filter(|j| j.value >= bid).collect();
    let (options, made) = if g.hand {
        let made = before.iter().copied().find(|j| j.choice == made_choice);
        let made = made.unwrap_or_else(|| chooser.judge_one(dealt, None, me, made_choice));
        (before, made)
    } else {
        let away: CardSet = record
            .moves
            .iter()
            .find_map(|m| match m.action {
                Action::Discard { cards } => Some(cards),
                _ => None,
            })
            .unwrap_or(CardSet::EMPTY);
        let twelve = dealt | record.dealt.skat;
        let mut put = away.iter();
        let (Some(a), Some(b)) = (put.next(), put.next()) else { return None };
        let made = chooser.judge_one(twelve.without(a).without(b), Some([a, b]), me, made_choice);
        // After the pick-up, what it could declare; before it, the hand games it left.
        let mut options = chooser.after_pickup(twelve, bid, me);
        options.extend(before.into_iter().filter(|j| j.choice.hand));
        (options, made)
    };
    let best = best(&options).filter(|b| b.expected > made.expected).unwrap_or(made);
    let spread = |j: &Judged| {
        let v = f64::from(j.value);
        let worlds = f64::from(j.worlds.max(1));
        (3.0 * v + 100.0).powi(2) * j.chance * (1.0 - j.chance) / worlds
    };
    let half_width = 1.96 * (spread(&best) + spread(&made)).sqrt();
    Some(ChoiceVerdict { made, best, loss: (best.expected - made.expected).max(0.0), half_width })
}

/// An option as JSON: `grand hand`, `null open`, `clubs`.
pub fn option_name(c: Choice) -> String {
    let mut name = format!("{:?}", c.game).to_lowercase();
    if c.hand {
        name.push_str(" hand");
    }
    if c.open {
        name.push_str(" open");
    }
    name
}

fn round(x: f64) -> f64 {
    (x * 10.0).round() / 10.0 + 0.0
}

fn judged_json(j: &Judged) -> Value {
    json!({
        "option": option_name(j.choice),
        "game": format!("{:?}", j.choice.game).to_lowercase(),
        "hand": j.choice.hand,
        "open": j.choice.open,
        "value": j.value,
        "chance": round(j.chance * 100.0) / 100.0,
        "expected": round(j.expected),
        "worlds": j.worlds,
    })
}

/// The verdicts as the analysis' JSON (`names`: forehand, middlehand, rearhand).
pub fn to_json(bids: &[BidVerdict], choice: Option<&ChoiceVerdict>, names: &[String; 3]) -> Value {
    let bids: Vec<Value> = bids
        .iter()
        .map(|b| {
            json!({
                "player": names[b.position.index()],
                "position": b.position.index(),
                "bid": b.bid,
                "worth": b.worth,
                "overbid": b.bid > b.worth,
            })
        })
        .collect();
    let choice = choice.map(|c| {
        json!({
            "made": judged_json(&c.made),
            "best": judged_json(&c.best),
            "loss": round(c.loss),
            "interval": [round(c.loss - c.half_width), round(c.loss + c.half_width)],
            "marked": c.loss - c.half_width > 0.0,
        })
    });
    json!({ "bids": bids, "declaration": choice })
}

#[cfg(test)]
mod tests {
    use super::*;
    use skat_engine::{Bid, Card, Contract, Deal, Dealt, GameType};

    fn cards(s: &str) -> CardSet {
        s.parse().expect("cards")
    }

    /// Forehand bids up to `bid` on `hand` and declares `contract` after picking up, the
    /// others pass at once; the deal is played out by the lowest legal card.
    fn record(hand: &str, bid: u16, contract: Contract) -> DealRecord {
        let rest = !cards(hand);
        let mut others = rest.iter();
        let middle: CardSet = others.by_ref().take(10).collect();
        let rear: CardSet = others.by_ref().take(10).collect();
        let skat: CardSet = others.collect();
        let dealt = Dealt::new([cards(hand), middle, rear], skat).expect("a deal");
        let mut deal = Deal::new(dealt);
        let mut moves = Vec::new();
        let mut act = |deal: &mut Deal, p: Position, action: Action| {
            deal.apply(p, action).expect("legal");
            moves.push(Move { position: p, action });
        };
        // Middlehand says to forehand, rearhand passes then.
        act(&mut deal, Position::Middlehand, Action::Pass);
        act(&mut deal, Position::Rearhand, Action::Bid { value: Bid::new(bid).expect("a bid") });
        act(&mut deal, Position::Forehand, Action::Hold);
        act(&mut deal, Position::Rearhand, Action::Pass);
        act(&mut deal, Position::Forehand, Action::PickUpSkat);
        let twelve = deal.view(Some(Position::Forehand)).hand;
        let away: CardSet = twelve.iter().filter(|c| !c.is_jack()).take(2).collect();
        act(&mut deal, Position::Forehand, Action::Discard { cards: away });
        act(&mut deal, Position::Forehand, Action::Declare { contract });
        while let Some(p) = deal.to_move() {
            let card: Card = deal.view(Some(p)).legal.cards.first().expect("a card");
            act(&mut deal, p, Action::Play { card });
        }
        let outcome = deal.outcome().expect("over");
        DealRecord {
            number: 0,
            seed: None,
            seats: [0, 1, 2].map(skat_engine::Seat::new),
            dealer: skat_engine::Seat::new(2),
            dealt,
            moves,
            outcome,
        }
    }

    #[test]
    fn a_weak_hand_bid_high_is_marked_overbid_and_a_null_on_a_grand_hand_is_a_loss() {
        // No jack, no ace: worth nothing, held to 44.
        let weak = record("C7.C8.S9.SQ.H7.H8.HQ.D7.DQ.DK", 44, Contract::plain(GameType::Diamonds));
        let (bids, _) = judge(&weak, ChoiceConfig::default(), 1);
        let fore = bids.iter().find(|b| b.position == Position::Forehand).expect("forehand bid");
        assert_eq!(fore.bid, 44);
        assert!(fore.worth < 44, "{fore:?}");
        // Four jacks and aces, declared null: the grand was far better.
        let strong = record("CJ.SJ.HJ.DJ.CA.CT.SA.ST.HA.DA", 18, Contract::plain(GameType::Null));
        let (bids, choice) = judge(&strong, ChoiceConfig::default(), 1);
        assert!(bids.iter().all(|b| b.bid <= b.worth || b.position != Position::Forehand), "{bids:?}");
        let c = choice.expect("a declaration judged");
        assert_eq!(c.made.choice.game, GameType::Null);
        assert_eq!(c.best.choice.game, GameType::Grand, "{c:?}");
        assert!(c.loss - c.half_width > 0.0, "{c:?}");
        let json = to_json(&bids, Some(&c), &["a".into(), "b".into(), "c".into()]);
        assert_eq!(json["declaration"]["marked"], true);
        assert_eq!(json["declaration"]["made"]["option"], "null");
    }
}
