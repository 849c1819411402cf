//! Entry point for fuzzers: any bytes as each request message the server converts, no
//! panic out. The cargo-fuzz target in `fuzz/` runs it for as long as one likes;
//! `tests/fuzz_convert.rs` runs a bounded number of cases in the test command.

use prost::Message;

use crate::convert;
use crate::pb;

/// Decodes `data` as every message whose fields the server turns into engine types, and
/// converts what decodes. What converts must convert back to the same thing.
pub fn requests(data: &[u8]) {
    if let Ok(r) = pb::BidRequest::decode(data) {
        let _ = convert::bid_action(r.call, r.value);
    }
    if let Ok(r) = pb::DiscardRequest::decode(data) {
        let _ = convert::discard_action(&r.cards);
    }
    if let Ok(r) = pb::DeclareRequest::decode(data) {
        let _ = convert::declare_action(r.game, r.announcement);
    }
    if let Ok(r) = pb::PlayCardRequest::decode(data)
        && let Ok(skat_engine::Action::Play { card }) = convert::play_action(r.card)
    {
        assert_eq!(convert::card(card), r.card);
    }
    if let Ok(c) = pb::Contract::decode(data)
        && let Ok(contract) = convert::contract_from(&c)
    {
        assert_eq!(convert::contract_from(&convert::contract(contract, c.hand)), Ok(contract));
    }
    if let Ok(l) = pb::LegalActions::decode(data)
        && let Ok(legal) = convert::legal_from(&l)
    {
        assert_eq!(convert::legal_from(&convert::legal(&legal, false)), Ok(legal));
    }
    if let Ok(e) = pb::Event::decode(data)
        && let Some(pb::event::Kind::ActionTaken(a)) = e.kind
        && let Some(c) = a.action.and_then(|a| a.contract)
    {
        let _ = convert::contract_from(&c);
    }
}
