//! A table's finished deals as records: ISS text (the format of the International Skat
//! Server, which `skat replay` and other programs read) or the engine's JSON.
//!
//! Only deals whose end is published may be read: a record is written from the log up
//! to a `seq`, so nobody reads the cards of a deal whose end is not yet durable.

use skat_engine::iss::{self, RecordMeta};

use super::Table;

/// A seat's comment on one of its actions: hidden while its deal is in play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// The deal (from 0).
    pub deal: u32,
    /// The action's index among the deal's moves.
    pub index: u32,
    /// Who.
    pub seat: skat_engine::matches::Seat,
    /// The text.
    pub text: String,
}

/// Where a record was played, beyond the table itself: what a JSON record carries so
/// that a line read on its own says whose it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordContext {
    /// The server's name (`skat serve --server-name`).
    pub server: String,
    /// The tournament the table belongs to, if any.
    pub tournament_id: Option<String>,
}

/// A table's finished deals as records: a view of the table ([`Table::records`]), which
/// writes them from its match, its log and its deals' end times.
#[derive(Debug, Clone, Copy)]
pub struct Records<'t> {
    table: &'t Table,
}

impl Table {
    /// The table's finished deals as records.
    pub fn records(&self) -> Records<'_> {
        Records { table: self }
    }
}

impl<'t> Records<'t> {
    /// The finished deals as ISS records or JSON lines.
    pub fn all(&self, json: bool, server_name: &str) -> Vec<String> {
        let context = RecordContext { server: server_name.to_string(), tournament_id: None };
        self.until(self.table.seq(), json, &context)
    }

    /// A JSON record: the engine's record with its context beside it (`table_id`,
    /// `tournament_id`, `server`, the players' names by seat and by position, the time
    /// the deal ended). The engine's fields keep their names and meaning.
    fn json_record(&self, i: usize, r: &skat_engine::record::DealRecord, context: &RecordContext) -> String {
        let table = self.table;
        let names = table.names();
        let mut value = serde_json::to_value(r).unwrap_or_default();
        if let Some(object) = value.as_object_mut() {
            let ended = table.deal_end_times.get(i).copied();
            object.insert("table_id".into(), table.id.to_string().into());
            object.insert("tournament_id".into(), context.tournament_id.clone().into());
            object.insert("server".into(), context.server.clone().into());
            object.insert("table_name".into(), table.config.name.clone().into());
            object.insert("seat_names".into(), names.clone().into());
            let by_position: Vec<String> = r.seats.iter().map(|s| names[usize::from(*s)].clone()).collect();
            object.insert("position_names".into(), by_position.into());
            object.insert("ended_ms".into(), ended.map(super::unix_ms).into());
            let comments: Vec<serde_json::Value> = self
                .comments_of(r.number)
                .map(|c| serde_json::json!({ "move": c.index, "seat": u32::from(c.seat), "text": c.text }))
                .collect();
            if !comments.is_empty() {
                object.insert("comments".into(), comments.into());
            }
            object.insert(
                "ended_at".into(),
                ended.map(|t| humantime::format_rfc3339_seconds(t).to_string()).into(),
            );
        }
        value.to_string()
    }

    /// The comments on the actions of deal `deal` (to be shown only once it has ended).
    pub fn comments_of(self, deal: u32) -> impl Iterator<Item = &'t Comment> {
        self.table.comments.iter().filter(move |c| c.deal == deal)
    }

    /// The records of the deals that ended at or before `seq` (the published ones).
    /// A table in play keeps no records (a table rebuilt to be read does): they are
    /// derived from its inputs, the same bytes (the golden tests hold them).
    pub fn until(&self, seq: u64, json: bool, context: &RecordContext) -> Vec<String> {
        let table = self.table;
        if !table.log.is_whole() {
            return table.past().records_until(seq, json, context);
        }
        let server_name = context.server.as_str();
        let names = table.names();
        let ended = table.log.deals_ended_by(seq);
        table
            .game
            .records()
            .iter()
            .take(ended)
            .enumerate()
            .map(|(i, r)| {
                if json {
                    return self.json_record(i, r, context);
                }
                let date = table.deal_end_times.get(i).map_or_else(String::new, |t| {
                    // RFC 3339 `2026-11-29T22:05:36Z` to ISS `2026-11-29/22:05:36/UTC`.
                    let text = humantime::format_rfc3339_seconds(*t).to_string();
                    text.trim_end_matches('Z').replacen('T', "/", 1) + "/UTC"
                });
                let meta = RecordMeta {
                    server: server_name.to_string(),
                    id: format!("{}.{}", table.id, r.number),
                    date,
                    players: r.seats.map(|s| names[usize::from(s)].clone()),
                    series: table.config.game.seed.to_string(),
                };
                iss::write(r, &meta)
            })
            .collect()
    }
}
