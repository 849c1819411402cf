//! Many deals stepped in one call: the form for self-play at scale, where a Python loop
//! per card would cost more than the rules themselves.
//!
//! A [`Batch`] holds `n` deals, each between three positions. One [`Batch::step`] takes one
//! id per deal (for the position to move there), checks all of them against the legal ids
//! it last wrote (a refused id changes nothing in any deal), applies them, and deals a
//! fresh hand wherever a deal ended, reporting its Seeger-Fabian points per position. The
//! caller owns the output arrays (numpy's, from Python): nothing is allocated per step.
//! Observations are written only when asked ([`Batch::observe`]): a policy that needs them
//! pays for them, a random or scripted player does not.

use skat_engine::{Dealt, Outcome, Phase, Position};

use crate::actions::{self, MAX_LEGAL, N_ACTIONS};
use crate::observation::{self, OBS_LEN};
use crate::table::{EnvDeal, EnvError};

/// Where one step's results go: `n` rows each.
pub struct Outputs<'a> {
    /// The position to move (0 forehand, 1 middlehand, 2 rearhand).
    pub to_move: &'a mut [i8],
    /// `n x N_ACTIONS`: 1 where an id is legal.
    pub mask: &'a mut [u8],
    /// `n x MAX_LEGAL`: the legal ids, then -1.
    pub legal_ids: &'a mut [i16],
    /// How many ids are legal.
    pub legal_count: &'a mut [u8],
    /// `n x 3`: the Seeger-Fabian points of the deal that just ended there, by position
    /// (0 where none ended).
    pub rewards: &'a mut [f32],
    /// 1 where a deal ended in this step (a fresh one is already dealt).
    pub done: &'a mut [u8],
}

/// A refused id, with the deal it was meant for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    /// One id per deal.
    #[error("expected {expected} action ids (one per deal), got {got}")]
    Count {
        /// The batch's size.
        expected: usize,
        /// What came.
        got: usize,
    },
    /// An output array has the wrong size.
    #[error("output `{name}` holds {got} numbers, needs {expected}")]
    Shape {
        /// Which output.
        name: &'static str,
        /// Its required size.
        expected: usize,
        /// Its size.
        got: usize,
    },
    /// An id is not legal in its deal.
    #[error("deal {index}: {error}")]
    Refused {
        /// Which deal.
        index: usize,
        /// Why.
        error: EnvError,
    },
}

/// `n` deals stepped together.
pub struct Batch {
    deals: Vec<EnvDeal>,
    legal: Vec<[u64; 3]>,
    seed: u64,
    next: u64,
    finished: u64,
}

fn has(bits: &[u64; 3], id: i64) -> bool {
    usize::try_from(id).is_ok_and(|i| i < N_ACTIONS && bits[i / 64] >> (i % 64) & 1 == 1)
}

impl Batch {
    /// `n` deals, the `k`-th of all dealt from `seed` as `Dealt::seeded(seed, k)`.
    pub fn new(n: usize, seed: u64) -> Batch {
        let deals = (0..n as u64).map(|k| EnvDeal::unrecorded(Dealt::seeded(seed, k))).collect();
        Batch { deals, legal: vec![[0; 3]; n], seed, next: n as u64, finished: 0 }
    }

    /// How many deals step together.
    pub fn len(&self) -> usize {
        self.deals.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.deals.is_empty()
    }

    /// How many deals have ended so far.
    pub fn deals_finished(&self) -> u64 {
        self.finished
    }

    /// The deals, for inspection.
    pub fn deals(&self) -> &[EnvDeal] {
        &self.deals
    }

    fn check_shapes(&self, out: &Outputs<'_>) -> Result<(), BatchError> {
        let n = self.deals.len();
        for (name, expected, got) in [
            ("to_move", n, out.to_move.len()),
            ("mask", n * N_ACTIONS, out.mask.len()),
            ("legal_ids", n * MAX_LEGAL, out.legal_ids.len()),
            ("legal_count", n, out.legal_count.len()),
            ("rewards", n * 3, out.rewards.len()),
            ("done", n, out.done.len()),
        ] {
            if expected != got {
                return Err(BatchError::Shape { name, expected, got });
            }
        }
        Ok(())
    }

    /// Writes the current state (who moves, the legal ids) without stepping; rewards and
    /// done are cleared.
    pub fn reset(&mut self, out: Outputs<'_>) -> Result<(), BatchError> {
        self.check_shapes(&out)?;
        out.rewards.fill(0.0);
        out.done.fill(0);
        out.mask.fill(0);
        out.legal_ids.fill(-1);
        out.legal_count.fill(0);
        self.legal.fill([0; 3]);
        for i in 0..self.deals.len() {
            self.write_row(i, &mut *out.to_move, &mut *out.mask, &mut *out.legal_ids, &mut *out.legal_count);
        }
        Ok(())
    }

    /// One id per deal, for the position to move there. All are checked first; if any is
    /// refused, nothing changes and the error names the first refused deal.
    pub fn step(&mut self, ids: &[i64], out: Outputs<'_>) -> Result<(), BatchError> {
        self.check_shapes(&out)?;
        if ids.len() != self.deals.len() {
            return Err(BatchError::Count { expected: self.deals.len(), got: ids.len() });
        }
        if let Some(index) = ids.iter().zip(&self.legal).position(|(id, bits)| !has(bits, *id)) {
            // Say why in the engine's words.
            let error = match self.deals[index].check(ids[index]) {
                Err(e) => e,
                Ok(()) => EnvError::Rule(skat_engine::RuleError::DealOver),
            };
            return Err(BatchError::Refused { index, error });
        }
        for (i, id) in ids.iter().enumerate() {
            let ended = match self.deals[i].step(*id) {
                Ok(outcome) => outcome,
                // Legal by the bits written last step, so the engine accepts it.
                Err(error) => return Err(BatchError::Refused { index: i, error }),
            };
            let row = &mut out.rewards[3 * i..3 * i + 3];
            if let Some(outcome) = ended {
                write_rewards(&outcome, row);
                out.done[i] = 1;
                self.finished += 1;
                self.deals[i] = EnvDeal::unrecorded(Dealt::seeded(self.seed, self.next));
                self.next += 1;
            } else {
                row.fill(0.0);
                out.done[i] = 0;
            }
            self.write_row(i, &mut *out.to_move, &mut *out.mask, &mut *out.legal_ids, &mut *out.legal_count);
        }
        Ok(())
    }

    fn write_row(
        &mut self,
        i: usize,
        to_move: &mut [i8],
        mask: &mut [u8],
        ids: &mut [i16],
        count: &mut [u8],
    ) {
        let deal = &self.deals[i];
        let p = deal.to_move().unwrap_or(Position::Forehand);
        to_move[i] = p.index() as i8;
        let mask = &mut mask[i * N_ACTIONS..(i + 1) * N_ACTIONS];
        let ids = &mut ids[i * MAX_LEGAL..(i + 1) * MAX_LEGAL];
        mask.fill(0);
        ids.fill(-1);
        let mut row = Row { mask, ids, bits: [0; 3], n: 0 };
        match deal.deal().phase() {
            // Most steps: only cards, and the engine's playable cards are exactly the legal
            // ones of the player to move (tested against the full legal actions).
            Phase::Playing => {
                for c in deal.deal().playable_cards(p) {
                    row.put(u16::from(c.index()));
                }
            }
            // A bid may be any value from the minimum up (up to 63 ids), then hold, pass:
            // the ids in increasing order, as `for_each_legal` gives them, without its
            // general path.
            Phase::Bidding => {
                let legal = deal.legal(p);
                if let Some(min) = legal.bid_from {
                    (actions::BID + min.ladder_index() as u16..actions::HOLD).for_each(|id| row.put(id));
                }
                if legal.hold {
                    row.put(actions::HOLD);
                }
                if legal.pass {
                    row.put(actions::PASS);
                }
            }
            _ => actions::for_each_legal(&deal.legal(p), deal.pending_discard(), |id| row.put(id)),
        }
        let (bits, n) = (row.bits, row.n);
        count[i] = n as u8;
        self.legal[i] = bits;
    }

    /// Writes each deal's observation for its position to move into `out` (`n x OBS_LEN`).
    pub fn observe(&self, out: &mut [f32]) -> Result<(), BatchError> {
        let expected = self.deals.len() * OBS_LEN;
        if out.len() != expected {
            return Err(BatchError::Shape { name: "observations", expected, got: out.len() });
        }
        for (deal, row) in self.deals.iter().zip(out.chunks_exact_mut(OBS_LEN)) {
            let (view, pending) = deal.view(deal.to_move());
            observation::encode(&view, pending, row);
        }
        Ok(())
    }
}

/// One deal's row of the outputs being written: the mask, the id list, and the bits the
/// next step checks ids against.
struct Row<'a> {
    mask: &'a mut [u8],
    ids: &'a mut [i16],
    bits: [u64; 3],
    n: usize,
}

impl Row<'_> {
    #[inline]
    fn put(&mut self, id: u16) {
        let u = usize::from(id);
        self.mask[u] = 1;
        self.bits[u / 64] |= 1 << (u % 64);
        self.ids[self.n] = id as i16;
        self.n += 1;
    }
}

/// Seeger-Fabian points by position at three seats.
pub fn write_rewards(outcome: &Outcome, row: &mut [f32]) {
    let (sf, _) = outcome.seeger_fabian(3);
    for (r, v) in row.iter_mut().zip(sf) {
        *r = v as f32;
    }
}
