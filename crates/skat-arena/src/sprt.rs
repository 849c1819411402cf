//! A sequential probability ratio test (Wald's SPRT) on paired duplicate lists: is the
//! new entry better than the old one by at least `d1` Seeger-Fabian points per list
//! (H1), or by at most `d0` (H0)? Lists are played until one hypothesis is accepted at the
//! error rates asked for, which usually takes far fewer lists than a fixed-size test of
//! the same power (the Fishtest way).
//!
//! | choice | why |
//! |---|---|
//! | one observation per list: the mean over its seat rotations of new − old | the rotations share the deals; they are one paired observation, not several |
//! | the differences are modelled as normal with an unknown variance, estimated from the lists so far (the plug-in Gaussian SPRT): LLR = (d1 − d0) / s² · Σ (dᵢ − (d0 + d1) / 2) | a list's difference is a sum of dozens of deals' points: close to normal; its spread differs per pairing and must be measured |
//! | Wald's bounds: accept H0 at LLR ≤ ln(β / (1 − α)), H1 at LLR ≥ ln((1 − β) / α) | the classical bounds; the tests show by simulation that the error rates hold |
//! | no decision before [`MIN_LISTS`] (16) lists | the variance of a few lists is too unsteady to bet on: with 5 the simulated false-H1 rate was 7.9% at α = 5%, with 16 it is 5.9% |

use serde::Serialize;

/// Lists before the test may decide.
pub const MIN_LISTS: usize = 16;

/// The test's hypotheses and error rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sprt {
    /// H0: the mean difference (new − old, Seeger-Fabian per list) is at most this.
    pub d0: f64,
    /// H1: it is at least this (more than `d0`).
    pub d1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What the test accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The difference is at most `d0`.
    H0,
    /// The difference is at least `d1`.
    H1,
}

/// The test after some lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SprtState {
    /// Lists seen.
    pub lists: usize,
    /// Sum of the differences.
    pub sum: f64,
    /// Sum of their squares.
    pub sum_sq: f64,
}

impl SprtState {
    /// Adds one list's difference.
    pub fn push(&mut self, difference: f64) {
        self.lists += 1;
        self.sum += difference;
        self.sum_sq += difference * difference;
    }

    /// The mean difference so far.
    pub fn mean(&self) -> f64 {
        if self.lists == 0 { 0.0 } else { self.sum / self.lists as f64 }
    }

    /// The sample variance so far (0 with fewer than two lists).
    pub fn variance(&self) -> f64 {
        if self.lists < 2 {
            return 0.0;
        }
        let n = self.lists as f64;
        ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0)
    }
}

impl Sprt {
    /// Checks the settings: d0 < d1, and both error rates in (0, 0.5).
    pub fn new(d0: f64, d1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        if !d0.is_finite() || !d1.is_finite() || d0 >= d1 {
            return Err(format!("the SPRT needs d0 < d1 (got {d0} and {d1})"));
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if v.is_nan() || v <= 0.0 || v >= 0.5 {
                return Err(format!("{name} is a probability between 0 and 0.5 (got {v})"));
            }
        }
        Ok(Sprt { d0, d1, alpha, beta })
    }

    /// Wald's bounds: (accept H0 at or below, accept H1 at or above).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after the lists in `s` (0 until the
    /// variance can be estimated).
    pub fn llr(&self, s: &SprtState) -> f64 {
        let var = s.variance();
        if s.lists < 2 || var <= 0.0 {
            return 0.0;
        }
        (self.d1 - self.d0) / var * (s.sum - s.lists as f64 * (self.d0 + self.d1) / 2.0)
    }

    /// The verdict, once there is one.
    pub fn verdict(&self, s: &SprtState) -> Option<Verdict> {
        if s.lists < MIN_LISTS {
            return None;
        }
        let (lower, upper) = self.bounds();
        let llr = self.llr(s);
        if llr <= lower {
            Some(Verdict::H0)
        } else if llr >= upper {
            Some(Verdict::H1)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng as _, SeedableRng as _};

    /// A standard normal draw (Box-Muller) from two uniform ones.
    fn normal(rng: &mut ChaCha8Rng) -> f64 {
        let u1 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// How often each verdict comes for differences Normal(mean, sd), over `runs` tests
    /// (a test that reaches `cap` lists counts as undecided), and the mean lists used.
    fn simulate(test: &Sprt, mean: f64, sd: f64, runs: usize, seed: u64) -> (f64, f64, f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut h0, mut h1, mut lists) = (0, 0, 0);
        for _ in 0..runs {
            let mut s = SprtState::default();
            let verdict = loop {
                s.push(mean + sd * normal(&mut rng));
                if let Some(v) = test.verdict(&s) {
                    break Some(v);
                }
                if s.lists >= 100_000 {
                    break None;
                }
            };
            lists += s.lists;
            match verdict {
                Some(Verdict::H0) => h0 += 1,
                Some(Verdict::H1) => h1 += 1,
                None => {}
            }
        }
        (h0 as f64 / runs as f64, h1 as f64 / runs as f64, lists as f64 / runs as f64)
    }

    #[test]
    fn the_error_rates_hold_by_simulation() {
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        // H0 true (the difference is d0): H1 accepted at most about alpha of the time.
        let (_, false_h1, _) = simulate(&test, 0.0, 40.0, 2000, 1);
        assert!(false_h1 <= 0.07, "false H1 rate {false_h1}");
        // H1 true (the difference is d1): H0 accepted at most about beta of the time.
        let (false_h0, _, lists) = simulate(&test, 10.0, 40.0, 2000, 2);
        eprintln!("false H1 {false_h1}, false H0 {false_h0}, mean lists at H1 {lists}");
        assert!(false_h0 <= 0.07, "false H0 rate {false_h0}");
        // Far from both: decided quickly and right.
        let (h0, _, _) = simulate(&test, -20.0, 40.0, 500, 3);
        assert!(h0 > 0.99);
        // Wald's approximation of the lists needed near H1: about 2 ln(19) sd² / (d1 - d0)²
        // = 94; the test uses no more than twice that on average.
        assert!(lists < 190.0, "mean lists {lists}");
        // Stricter error rates take more lists.
        let strict = Sprt::new(0.0, 10.0, 0.01, 0.01).unwrap();
        let (_, _, strict_lists) = simulate(&strict, 10.0, 40.0, 500, 4);
        assert!(strict_lists > lists);
    }

    #[test]
    fn settings_are_checked_and_the_bounds_are_walds() {
        assert!(Sprt::new(10.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 10.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 10.0, 0.05, 0.6).is_err());
        let (lo, hi) = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap().bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
        let mut s = SprtState::default();
        for d in [1.0, 2.0, 3.0] {
            s.push(d);
        }
        assert_eq!(s.mean(), 2.0);
        assert_eq!(s.variance(), 1.0);
    }
}
