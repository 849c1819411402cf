//! Any bytes as each request message the server converts (skat_proto::fuzzing).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    skat_proto::fuzzing::requests(data);
});
