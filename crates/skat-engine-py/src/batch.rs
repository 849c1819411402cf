//! `Batch`: many deals stepped in one call, writing into numpy arrays it owns (no Python
//! per card, nothing allocated per step). See `skat_env::batch`.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use skat_env::observation::OBS_LEN;
use skat_env::{MAX_LEGAL, N_ACTIONS, Outputs};

use crate::refused;

/// `n` deals between three positions stepped together; a deal that ends is scored and
/// replaced by a fresh one from the same seed's sequence.
#[pyclass(module = "skat_engine._native")]
pub struct Batch {
    inner: skat_env::Batch,
    /// int8 (n): the position to move in each deal (0 forehand, 1 middlehand, 2 rearhand).
    #[pyo3(get)]
    to_move: Py<PyArray1<i8>>,
    /// uint8 (n, N_ACTIONS): 1 where an id is legal.
    #[pyo3(get)]
    mask: Py<PyArray2<u8>>,
    /// int16 (n, MAX_LEGAL): the legal ids, then -1.
    #[pyo3(get)]
    legal_ids: Py<PyArray2<i16>>,
    /// uint8 (n): how many ids are legal.
    #[pyo3(get)]
    legal_count: Py<PyArray1<u8>>,
    /// float32 (n, 3): Seeger-Fabian points by position of the deal that ended in the last step.
    #[pyo3(get)]
    rewards: Py<PyArray2<f32>>,
    /// uint8 (n): 1 where a deal ended in the last step.
    #[pyo3(get)]
    done: Py<PyArray1<u8>>,
    /// float32 (n, OBS_LEN): filled by `observe()`.
    #[pyo3(get)]
    observations: Py<PyArray2<f32>>,
}

macro_rules! outputs {
    ($self:ident, $py:ident, $body:expr) => {{
        let mut to_move = $self.to_move.bind($py).readwrite();
        let mut mask = $self.mask.bind($py).readwrite();
        let mut ids = $self.legal_ids.bind($py).readwrite();
        let mut count = $self.legal_count.bind($py).readwrite();
        let mut rewards = $self.rewards.bind($py).readwrite();
        let mut done = $self.done.bind($py).readwrite();
        let out = Outputs {
            to_move: to_move.as_slice_mut().map_err(refused)?,
            mask: mask.as_slice_mut().map_err(refused)?,
            legal_ids: ids.as_slice_mut().map_err(refused)?,
            legal_count: count.as_slice_mut().map_err(refused)?,
            rewards: rewards.as_slice_mut().map_err(refused)?,
            done: done.as_slice_mut().map_err(refused)?,
        };
        $body(out)
    }};
}

#[pymethods]
impl Batch {
    /// `n` deals; the k-th deal of the batch's whole sequence is dealt as the server deals
    /// deal k of a list with this `seed`.
    #[new]
    #[pyo3(signature = (n, seed = 0))]
    fn new(py: Python<'_>, n: usize, seed: u64) -> PyResult<Batch> {
        if n == 0 || n > 1 << 20 {
            return Err(refused(format!("a batch holds 1 to {} deals, not {n}", 1 << 20)));
        }
        let mut b = Batch {
            inner: skat_env::Batch::new(n, seed),
            to_move: PyArray1::zeros(py, n, false).unbind(),
            mask: PyArray2::zeros(py, [n, N_ACTIONS], false).unbind(),
            legal_ids: PyArray2::zeros(py, [n, MAX_LEGAL], false).unbind(),
            legal_count: PyArray1::zeros(py, n, false).unbind(),
            rewards: PyArray2::zeros(py, [n, 3], false).unbind(),
            done: PyArray1::zeros(py, n, false).unbind(),
            observations: PyArray2::zeros(py, [n, OBS_LEN], false).unbind(),
        };
        let inner = &mut b.inner;
        outputs!(b, py, |out| inner.reset(out).map_err(refused))?;
        Ok(b)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// How many deals have ended so far.
    #[getter]
    fn deals_finished(&self) -> u64 {
        self.inner.deals_finished()
    }

    /// One action id per deal (int64 array of length n) for the position to move there.
    /// All are checked before any is applied: an illegal id raises RuleError naming the
    /// deal, and nothing changes. Updates to_move, mask, legal_ids, legal_count, rewards,
    /// done in place.
    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        if !actions.is_contiguous() {
            return Err(refused("actions must be a contiguous int64 array"));
        }
        let ids = actions.as_slice().map_err(refused)?;
        let inner = &mut self.inner;
        outputs!(self, py, |out| inner.step(ids, out).map_err(refused))
    }

    /// Writes every deal's observation for its position to move into `observations` and
    /// returns that array.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let arr = self.observations.bind(py);
        {
            let mut w = arr.readwrite();
            self.inner.observe(w.as_slice_mut().map_err(refused)?).map_err(refused)?;
        }
        Ok(arr.clone())
    }
}
