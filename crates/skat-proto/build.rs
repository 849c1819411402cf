//! Generates the skat.v1 messages, client and server from `proto/`, with a file
//! descriptor set for server reflection. protoc comes from `protoc-bin-vendored`, so a
//! fresh machine needs nothing installed (a `PROTOC` set in the environment wins).

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let files = [proto_root.join("skat/v1/skat.proto"), proto_root.join("skat/v1/hosting.proto")];
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    if std::env::var_os("PROTOC").is_none() {
        // SAFETY of intent: build scripts are single-threaded; prost-build reads PROTOC.
        unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    tonic_prost_build::configure()
        .codec_path("crate::codec::SkatCodec")
        .file_descriptor_set_path(out.join("skat_v1_descriptor.bin"))
        .compile_protos(&files, &[proto_root])?;
    Ok(())
}
