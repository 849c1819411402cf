//! [`TableId`]: which replica created a table, and its number there.
//!
//! Written `t3f9ab2c4d5e6` on a single server and `skat-1.3f9ab2c4d5e6` when replicas
//! run (`--node-id`): the id names the replica that created the table, which owns it
//! unless a live replica took it over from a dead one (the database's owner then says;
//! `journal::takeover`). An id never changes.

use std::fmt;
use std::str::FromStr;

/// A table's id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableId {
    node: Option<String>,
    number: u64,
}

/// A text that is not a table id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a table id (like t3f9ab2c4d5e6 or skat-1.3f9ab2c4d5e6)")]
pub struct NotATableId;

/// Table numbers have 48 bits: 12 hex digits.
const DIGITS: usize = 12;

impl TableId {
    /// The id of table `number` (its low 48 bits) on `node` (`None`: a single server).
    pub fn new(node: Option<&str>, number: u64) -> TableId {
        TableId { node: node.map(str::to_string), number: number & 0xffff_ffff_ffff }
    }

    /// The replica that created the table (its owner unless taken over), if named.
    pub fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }

    /// The replica that owns the table when it is not `this_node` (`None`: no node
    /// prefix, or this server's own table).
    pub fn foreign_node(&self, this_node: Option<&str>) -> Option<&str> {
        let node = self.node()?;
        (Some(node) != this_node).then_some(node)
    }
}

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(node) => write!(f, "{node}.{:012x}", self.number),
            None => write!(f, "t{:012x}", self.number),
        }
    }
}

impl FromStr for TableId {
    type Err = NotATableId;

    fn from_str(s: &str) -> Result<TableId, NotATableId> {
        let (node, digits) = match s.rsplit_once('.') {
            Some((node, digits)) if !node.is_empty() => (Some(node), digits),
            Some(_) => return Err(NotATableId),
            None => (None, s.strip_prefix('t').ok_or(NotATableId)?),
        };
        if digits.len() != DIGITS || !digits.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        {
            return Err(NotATableId);
        }
        let number = u64::from_str_radix(digits, 16).map_err(|_| NotATableId)?;
        Ok(TableId::new(node, number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_and_parse_both_ways() {
        for id in [TableId::new(None, 0x3f9a_b2c4_d5e6), TableId::new(Some("skat-1"), 7)] {
            assert_eq!(id.to_string().parse::<TableId>(), Ok(id.clone()));
        }
        assert_eq!(TableId::new(Some("a.b"), 1).to_string().parse::<TableId>().unwrap().node(), Some("a.b"));
        for bad in [
            "",
            "t",
            "x3f9ab2c4d5e6",
            "t3F9AB2C4D5E6",
            "t3f9ab2c4d5e",
            ".3f9ab2c4d5e6",
            "t3f9ab2c4d5e6z",
            "nope",
        ] {
            assert!(bad.parse::<TableId>().is_err(), "{bad}");
        }
    }
}
