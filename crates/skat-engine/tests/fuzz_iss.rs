//! The ISS record parser and replay under hostile input, bounded for the test command
//! (the cargo-fuzz target `iss_record` in `fuzz/` runs the same harness without bound):
//! arbitrary text, and the real records with their moves cut, swapped, repeated and
//! replaced. Nothing may panic, and whatever replays must survive our own writer.

use proptest::prelude::*;
use skat_engine::fuzzing;

const RECORDS: &str = include_str!("data/records.sgf");

fn records() -> Vec<&'static str> {
    RECORDS.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// Words that mean something in MV, so that mutations reach deep into the replay.
const WORDS: &[&str] = &[
    "w", "0", "1", "2", "3", "-1", "p", "y", "s", "18", "20", "22", "23", "24", "264", "17", "SC", "RE",
    "TI.0", "LE.1", "TI.9", "??", "G", "GH", "GO", "GHZ", "NO", "NOH", "N", "C", "S.CJ.SJ", "D.CA",
    "H.CJ.CJ", "CJ", "SA", "HT", "D7", "DA.SA", "SC.CJ.SJ", "w CJ.SJ", "", ".", "G.", "NZ",
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize),
    Swap(usize, usize),
    Repeat(usize),
    Replace(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        any::<usize>().prop_map(Mutation::Repeat),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(record: &str, mutations: &[Mutation]) -> String {
    let (head, rest) = record.split_once("MV[").unwrap_or((record, ""));
    let (mv, tail) = rest.split_once(']').unwrap_or((rest, ""));
    let mut words: Vec<String> = mv.split_whitespace().map(String::from).collect();
    let mut text_cut = None;
    for m in mutations {
        let n = words.len().max(1);
        match *m {
            Mutation::Delete(i) if !words.is_empty() => {
                words.remove(i % n);
            }
            Mutation::Swap(a, b) if !words.is_empty() => words.swap(a % n, b % n),
            Mutation::Repeat(i) if !words.is_empty() => {
                let w = words[i % n].clone();
                words.insert(i % n, w);
            }
            Mutation::Replace(i, w) if !words.is_empty() => words[i % n] = WORDS[w % WORDS.len()].to_string(),
            Mutation::Truncate(at) => text_cut = Some(at),
            _ => {}
        }
    }
    let text = format!("{head}MV[{}]{tail}", words.join(" "));
    match text_cut {
        Some(at) => text.chars().take(at % (text.chars().count() + 1)).collect(),
        None => text,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_records_never_panic(index in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let all = records();
        fuzzing::iss_record(&mutate(all[index % all.len()], &mutations));
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        fuzzing::iss_record(&text);
    }

    #[test]
    fn record_shaped_text_never_panics(mv in prop::collection::vec(prop::sample::select(WORDS), 0..60), r in "[a-z0-9: -]{0,40}") {
        let deal = records()[0].split("MV[").nth(1).unwrap().split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        fuzzing::iss_record(&format!("(;GM[Skat]ID[1]MV[{deal} {}]R[{r}];)", mv.join(" ")));
    }
}

#[test]
fn every_real_record_passes_the_harness() {
    for record in records() {
        fuzzing::iss_record(record);
    }
}
