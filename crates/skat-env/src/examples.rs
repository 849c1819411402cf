//! Supervised examples from game records: for every decision a player made, what that
//! player knew (the observation), what it chose (the id), what was legal (the mask), and
//! how the deal ended for it.
//!
//! The record is replayed through the engine (`skat_engine::iss::replay`, which re-scores
//! real ISS records exactly), so an example exists only for a move the rules accept. A
//! discard yields two examples, the cards in index order, the second one seeing the first
//! among the discards, as the environment asks for them. Claim, resign and forfeit are
//! outside the action space (see [`crate::actions`]): they yield no example, and the
//! outcome is still the record's.

use skat_engine::iss::{self, IssError, IssRecord};
use skat_engine::record::Move;
use skat_engine::{Action, Card, Deal, Outcome, Position};

use crate::actions::{self, N_ACTIONS};
use crate::observation::{self, OBS_LEN};

/// One decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// What the player knew (`OBS_LEN` numbers).
    pub observation: Vec<f32>,
    /// What was legal (`N_ACTIONS` bytes).
    pub mask: Vec<u8>,
    /// What it chose.
    pub action: u16,
    /// Who chose it.
    pub position: Position,
    /// The deal's Seeger-Fabian points for that position (three seats).
    pub points: i32,
    /// Whether that position's side won (the declarer's game won, or lost for a
    /// defender; a deal passed in is a loss for nobody: false for all).
    pub won: bool,
}

/// The examples of one record, in the order the decisions were made.
pub fn from_iss(text: &str) -> Result<Vec<Example>, IssError> {
    let record = IssRecord::parse(text)?;
    let replay = iss::replay(&record)?;
    Ok(from_moves(&Deal::new(*replay.deal.dealt()), &replay.moves, &replay.outcome))
}

/// The examples of `moves` played from `start` ending in `outcome`.
pub fn from_moves(start: &Deal, moves: &[Move], outcome: &Outcome) -> Vec<Example> {
    let (sf, _) = outcome.seeger_fabian(3);
    let winner_side = match outcome {
        Outcome::Game(g) => Some((g.declarer, g.won)),
        _ => None,
    };
    let mut deal = start.clone();
    let mut out = Vec::new();
    for m in moves {
        let p = m.position;
        let won = winner_side.is_some_and(|(d, w)| (d == p) == w);
        let mut push = |deal: &Deal, pending: Option<Card>, id: u16| {
            let mut observation = vec![0.0; OBS_LEN];
            let view = deal.view(Some(p));
            observation::encode(&view, pending, &mut observation);
            let mut mask = vec![0; N_ACTIONS];
            actions::write_mask(&view.legal, pending, &mut mask);
            out.push(Example { observation, mask, action: id, position: p, points: sf[p.index()], won });
        };
        match m.action {
            Action::Discard { cards } => {
                let mut pending = None;
                for c in cards {
                    push(&deal, pending, actions::DISCARD + u16::from(c.index()));
                    pending = Some(c);
                }
            }
            a => {
                if let [id] = actions::encode(a)[..] {
                    push(&deal, None, id);
                }
            }
        }
        // The replay accepted these moves on the same cards.
        if deal.apply(p, m.action).is_err() {
            break;
        }
    }
    out
}
