//! `proto/a2a.binpb`, the descriptor the probe's gRPC caller reads, is what
//! `proto/a2a.proto` (A2A 1.0's, unchanged) compiles to: a change to either
//! that is not the other's fails here.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

#[test]
fn the_descriptor_is_the_vendored_proto_compiled() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("proto");
    let mut compiler = protox::Compiler::new([&dir]).unwrap();
    compiler.include_imports(true);
    compiler.include_source_info(false);
    compiler.open_file("a2a.proto").unwrap();
    let compiled = compiler.encode_file_descriptor_set();
    let kept = dir.join("a2a.binpb");
    if std::env::var_os("A2A_LAB_WRITE_DESCRIPTOR").is_some() {
        std::fs::write(&kept, &compiled).unwrap();
    }
    let on_disk = std::fs::read(&kept).unwrap_or_default();
    assert!(
        on_disk == compiled,
        "proto/a2a.binpb is not proto/a2a.proto compiled: \
         A2A_LAB_WRITE_DESCRIPTOR=1 cargo test --test cli grpc_descriptor:: rewrites it"
    );
}

#[test]
fn the_service_has_the_probes_methods() {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("proto/a2a.binpb")).unwrap();
    let pool = prost_reflect::DescriptorPool::decode(bytes.as_slice()).unwrap();
    let service = pool.get_service_by_name("lf.a2a.v1.A2AService").unwrap();
    for (name, streams) in [
        ("SendStreamingMessage", true),
        ("GetTask", false),
        ("CancelTask", false),
        ("SubscribeToTask", true),
    ] {
        let method = service.methods().find(|m| m.name() == name).unwrap();
        assert_eq!(method.is_server_streaming(), streams, "{name}");
    }
}
