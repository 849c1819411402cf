//! A table's finished deals as records: ISS text (the format of the International Skat
//! Server, which `skat replay` and other programs read) or the engine's JSON.
//!
//! Only deals whose end is published may be read: a record is written from the log up
//! to a `seq`, so nobody reads the cards of a deal whose end is not yet durable.

use skat_engine::iss::{self, RecordMeta};

use super::{Table, TableEvent};

impl Table {
    /// The finished deals as ISS records or JSON lines.
    pub fn records(&self, json: bool, server_name: &str) -> Vec<String> {
        self.records_until(self.seq(), json, server_name)
    }

    /// The records of the deals that ended at or before `seq` (the published ones).
    pub fn records_until(&self, seq: u64, json: bool, server_name: &str) -> Vec<String> {
        let names = self.names();
        let upto = usize::try_from(seq).unwrap_or(usize::MAX).min(self.log.len());
        let ended = self.log[..upto]
            .iter()
            .filter(|e| matches!(e.event, TableEvent::Game(skat_engine::GameEvent::DealEnded { .. })))
            .count();
        self.game
            .records()
            .iter()
            .take(ended)
            .enumerate()
            .map(|(i, r)| {
                if json {
                    return serde_json::to_string(r).unwrap_or_default();
                }
                let date = self.deal_end_times.get(i).map_or_else(String::new, |t| {
                    // RFC 3339 `2026-11-29T22:05:36Z` to ISS `2026-11-29/22:05:36/UTC`.
                    let text = humantime::format_rfc3339_seconds(*t).to_string();
                    text.trim_end_matches('Z').replacen('T', "/", 1) + "/UTC"
                });
                let meta = RecordMeta {
                    server: server_name.to_string(),
                    id: format!("{}.{}", self.id, r.number),
                    date,
                    players: r.seats.map(|s| names[usize::from(s)].clone()),
                    series: self.config.game.seed.to_string(),
                };
                iss::write(r, &meta)
            })
            .collect()
    }
}
