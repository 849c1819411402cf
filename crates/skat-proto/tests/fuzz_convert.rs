//! Every conversion the server applies to what a client sends, under hostile input,
//! bounded for the test command (the cargo-fuzz target `requests` in `fuzz/` runs the same
//! harness without bound): arbitrary bytes, and well-formed messages with arbitrary
//! field values. Nothing may panic; what converts must convert back.

use proptest::prelude::*;
use prost::Message;
use skat_proto::{fuzzing, pb};

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..200)) {
        fuzzing::requests(&data);
    }

    #[test]
    fn well_formed_messages_with_any_values(
        call in any::<i32>(), value in any::<u32>(), card in any::<i32>(),
        cards in prop::collection::vec(any::<i32>(), 0..6),
        game in any::<i32>(), announcement in any::<i32>(), hand in any::<bool>(), min_bid in any::<u32>(),
    ) {
        let contract = pb::Contract { game, announcement, hand };
        let messages: Vec<Vec<u8>> = vec![
            pb::BidRequest { call, value, ..Default::default() }.encode_to_vec(),
            pb::DiscardRequest { cards: cards.clone(), ..Default::default() }.encode_to_vec(),
            pb::DeclareRequest { game, announcement, ..Default::default() }.encode_to_vec(),
            pb::PlayCardRequest { card, ..Default::default() }.encode_to_vec(),
            contract.encode_to_vec(),
            pb::LegalActions {
                min_bid,
                discard_from: cards.clone(),
                contracts: vec![contract],
                cards,
                ..Default::default()
            }
            .encode_to_vec(),
        ];
        for m in messages {
            fuzzing::requests(&m);
        }
    }
}
