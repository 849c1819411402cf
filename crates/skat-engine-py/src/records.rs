//! Records in and out, supervised examples, and the constants of the encoding.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use skat_engine::iss::{self, IssRecord};
use skat_env::actions::{self, N_ACTIONS};
use skat_env::observation::{LAYOUT, OBS_LEN};

use crate::IssError;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("N_ACTIONS", N_ACTIONS)?;
    m.add("OBS_LEN", OBS_LEN)?;
    m.add("MAX_LEGAL", actions::MAX_LEGAL)?;
    let layout: Vec<(&str, usize, usize, &str)> =
        LAYOUT.iter().map(|s| (s.name, s.offset, s.len, s.meaning)).collect();
    m.add("LAYOUT", layout)?;
    m.add_function(wrap_pyfunction!(action_name, m)?)?;
    m.add_function(wrap_pyfunction!(replay_iss, m)?)?;
    m.add_function(wrap_pyfunction!(examples_from_iss, m)?)?;
    Ok(())
}

/// A short English name of an action id (`play CJ`, `bid 18`, `declare G`).
#[pyfunction]
fn action_name(id: i64) -> PyResult<String> {
    actions::name(id).map_err(crate::refused)
}

/// Replays an ISS record through the engine: a dict with the deal (ISS cards), every
/// move as (position, engine action as JSON, ids), the result as the engine scores it
/// (JSON) and as ISS writes it, and the record written again by the engine.
#[pyfunction]
fn replay_iss<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let record = IssRecord::parse(text).map_err(|e| IssError::new_err(e.to_string()))?;
    let replay = iss::replay(&record).map_err(|e| IssError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("id", record.id())?;
    d.set_item("dealt", replay.deal.dealt().to_iss())?;
    let moves: Vec<(usize, String, Vec<u16>)> = replay
        .moves
        .iter()
        .map(|m| {
            (
                m.position.index(),
                serde_json::to_string(&m.action).unwrap_or_default(),
                actions::encode(m.action),
            )
        })
        .collect();
    d.set_item("moves", moves)?;
    d.set_item("outcome", serde_json::to_string(&replay.outcome).unwrap_or_default())?;
    d.set_item("result", iss::IssResult::from_outcome(&replay.outcome).to_iss())?;
    d.set_item("recorded_result", record.get("R").unwrap_or_default())?;
    d.set_item("points", replay.outcome.seeger_fabian(3).0.to_vec())?;
    Ok(d)
}

/// The (observation, mask, action, position, points, won) examples of an ISS record as
/// numpy arrays: `observations` float32 (k, OBS_LEN), `masks` uint8 (k, N_ACTIONS),
/// `actions` int64 (k), `positions` int8 (k), `points` int32 (k), `won` bool (k).
#[pyfunction]
fn examples_from_iss<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let examples = skat_env::examples::from_iss(text).map_err(|e| IssError::new_err(e.to_string()))?;
    let k = examples.len();
    let obs: Vec<f32> = examples.iter().flat_map(|e| e.observation.iter().copied()).collect();
    let masks: Vec<u8> = examples.iter().flat_map(|e| e.mask.iter().copied()).collect();
    let d = PyDict::new(py);
    d.set_item("observations", PyArray1::from_vec(py, obs).reshape([k, OBS_LEN])?)?;
    d.set_item("masks", PyArray1::from_vec(py, masks).reshape([k, N_ACTIONS])?)?;
    d.set_item("actions", PyArray1::from_iter(py, examples.iter().map(|e| i64::from(e.action))))?;
    d.set_item("positions", PyArray1::from_iter(py, examples.iter().map(|e| e.position.index() as i8)))?;
    d.set_item("points", PyArray1::from_iter(py, examples.iter().map(|e| e.points)))?;
    d.set_item("won", PyArray1::from_iter(py, examples.iter().map(|e| e.won)))?;
    Ok(d)
}
