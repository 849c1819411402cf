//! Any bytes as an ISS record: parse, replay, write back (skat_engine::fuzzing).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        skat_engine::fuzzing::iss_record(text);
    }
});
