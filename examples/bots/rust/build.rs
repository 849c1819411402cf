//! Stubs from the contract, as any Rust bot would make them: tonic-prost-build on
//! proto/skat/v1/skat.proto (protoc from protoc-bin-vendored unless PROTOC is set).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("PROTOC").is_none() {
        // SAFETY of intent: build scripts are single-threaded; prost-build reads PROTOC.
        unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    }
    tonic_prost_build::configure()
        .build_server(false)
        .compile_protos(&["../../../proto/skat/v1/skat.proto"], &["../../../proto"])?;
    println!("cargo:rerun-if-changed=../../../proto/skat/v1/skat.proto");
    Ok(())
}
