//! `a2a-lab probe` and TLS (SPEC §10, §11, §16): a `grpcs://` interface is
//! spoken over TLS, trusted by the CA `--ca-file` names as an `https://`
//! card is; a certificate the probe does not trust is said as TLS, not as
//! an agent that cannot be reached; and credentials (`--header`) never go
//! in plain text to an agent whose card came over https. The CA, its
//! certificate for 127.0.0.1 and the servers are made here, on 127.0.0.1.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_lab::model::evidence::probe::report::ProbeReport;
use cli_support::binary;
use grpc_standin::{card, serve_card, serve_tls, Kind, TOKEN};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::ServerConfig;

use crate::cli_support;
use crate::grpc_standin;

/// A private CA and a certificate it signed for 127.0.0.1.
struct Pki {
    /// The CA's certificate, as `--ca-file` takes it.
    ca_file: PathBuf,
    /// The certificate for 127.0.0.1 and its key.
    chain: Vec<tokio_rustls::rustls::pki_types::CertificateDer<'static>>,
    key: Vec<u8>,
}

impl Pki {
    fn new(name: &str) -> Pki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "a2a-lab test CA");
        let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp/grpc-tls")
            .join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, ca.pem()).unwrap();
        Pki {
            ca_file,
            chain: vec![leaf.der().clone()],
            key: key.serialize_der(),
        }
    }

    /// A server's TLS with this certificate, offering `alpn`.
    fn server(&self, alpn: &[u8]) -> Arc<ServerConfig> {
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.clone()));
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(self.chain.clone(), key)
            .unwrap();
        config.alpn_protocols = vec![alpn.to_vec()];
        Arc::new(config)
    }

    fn ca(&self) -> &str {
        self.ca_file.to_str().unwrap()
    }
}

/// Serves `card` over HTTPS (HTTP/1.1, one answer a connection) on
/// 127.0.0.1, whatever is asked; returns its URL.
fn serve_card_tls(pki: &Pki, card: String) -> String {
    let acceptor = tokio_rustls::TlsAcceptor::from(pki.server(b"http/1.1"));
    let (runtime, listener) = grpc_standin::runtime_and_listener();
    let url = format!("https://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        runtime.block_on(async move {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let (acceptor, card) = (acceptor.clone(), card.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(socket).await else {
                        return;
                    };
                    // The request's head, bounded; its body (none) unread.
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 << 10 {
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                         content-length: {}\r\nconnection: close\r\n\r\n{card}",
                        card.len()
                    );
                    let _ = tls.write_all(answer.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
    });
    url
}

/// A plain TCP listener on 127.0.0.1 that answers nothing and keeps
/// every byte it receives (up to 1 MiB): what an agent's plaintext
/// interface would have been sent.
fn plaintext_listener() -> (std::net::SocketAddr, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let kept = kept.clone();
            std::thread::spawn(move || {
                socket
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = socket.read(&mut buf) {
                    let mut kept = kept.lock().unwrap();
                    if kept.len() < 1 << 20 {
                        kept.extend_from_slice(&buf[..n]);
                    }
                }
            });
        }
    });
    (addr, received)
}

fn grpc_interface(url: &str) -> serde_json::Value {
    json!([{"url": url, "protocolBinding": "GRPC", "protocolVersion": "1.0"}])
}

fn said(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr)
}

/// The card over https and its `grpcs://` interface, both signed by a
/// private CA that `--ca-file` names: the six probes run over TLS, with
/// the credentials as metadata, and find nothing.
#[test]
fn a_grpcs_interface_is_spoken_over_tls_trusted_by_the_ca_file() {
    let pki = Pki::new("trusted");
    let grpc = serve_tls(Kind::Bearer, pki.server(b"h2"));
    let url = serve_card_tls(&pki, card(grpc_interface(&format!("grpcs://{grpc}"))));
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/tmp/grpc-tls/trusted/out");
    let _ = std::fs::remove_dir_all(&out);
    let header = format!("Authorization: Bearer {TOKEN}");
    let output = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--ca-file",
        pki.ca(),
        "--header",
        &header,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let report =
        ProbeReport::from_json(&std::fs::read_to_string(out.join("probe.json")).unwrap()).unwrap();
    assert_eq!(report.agent.binding.name(), "grpc");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

/// With the public roots only (no `--ca-file`), the private CA's
/// certificate is refused: over the card's https and over the gRPC
/// interface's TLS alike, said as TLS, with what to do.
#[test]
fn an_untrusted_certificate_is_said_as_tls_not_as_unreachable() {
    let pki = Pki::new("untrusted");
    let grpc = serve_tls(Kind::Clean, pki.server(b"h2"));
    let interfaces = grpc_interface(&format!("grpcs://{grpc}"));

    // The card itself, over https.
    let url = serve_card_tls(&pki, card(interfaces.clone()));
    let output = binary(["probe", &url, "--timeout-ms", "2000"]);
    let text = said(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("TLS with https://127.0.0.1:"), "{text}");
    assert!(text.contains("--ca-file"), "{text}");
    assert!(!text.contains("cannot reach"), "{text}");

    // The card over plain HTTP, its gRPC interface over TLS.
    let url = serve_card(card(interfaces));
    let output = binary(["probe", &url, "--timeout-ms", "2000"]);
    let text = said(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!("TLS with https://{grpc} was refused")),
        "{text}"
    );
    assert!(text.contains("invalid peer certificate"), "{text}");
    assert!(text.contains("--ca-file"), "{text}");
    assert!(!text.contains("cannot reach"), "{text}");

    // The same, trusted: the refusal was the certificate's alone.
    let output = binary(["probe", &url, "--timeout-ms", "2000", "--ca-file", pki.ca()]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
}

/// A card that came over https whose interface does not speak TLS: with
/// `--header`, the probe refuses before sending anything there, on either
/// binding; the plaintext listener receives not a byte.
#[test]
fn credentials_never_go_in_plain_text_to_an_agent_whose_card_came_over_https() {
    let pki = Pki::new("downgrade");
    let (grpc, grpc_got) = plaintext_listener();
    let (rpc, rpc_got) = plaintext_listener();
    let interfaces = json!([
        {"url": format!("http://{rpc}/"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": grpc.to_string(), "protocolBinding": "GRPC", "protocolVersion": "1.0"}
    ]);
    let url = serve_card_tls(&pki, card(interfaces));
    let header = format!("Authorization: Bearer {TOKEN}");
    for (binding, interface) in [
        ("grpc", grpc.to_string()),
        ("jsonrpc", format!("http://{rpc}/")),
    ] {
        let output = binary([
            "probe",
            &url,
            "--binding",
            binding,
            "--timeout-ms",
            "1000",
            "--ca-file",
            pki.ca(),
            "--header",
            &header,
        ]);
        let text = said(&output);
        assert_eq!(output.status.code(), Some(2), "{binding}: {text}");
        assert!(
            text.contains("refusing to send --header in plain text")
                && text.contains(&format!(
                    "its {binding} interface {interface} does not speak TLS"
                )),
            "{binding}: {text}"
        );
        assert!(!text.contains(TOKEN), "{text}");
    }
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        grpc_got.lock().unwrap().is_empty(),
        "the gRPC listener was sent bytes"
    );
    assert!(
        rpc_got.lock().unwrap().is_empty(),
        "the JSON-RPC listener was sent bytes"
    );

    // Without credentials the plaintext gRPC interface is called: the
    // listener does receive what the probe sends (HTTP/2's preface).
    let output = binary([
        "probe",
        &url,
        "--binding",
        "grpc",
        "--timeout-ms",
        "500",
        "--ca-file",
        pki.ca(),
    ]);
    assert_ne!(output.status.code(), Some(0), "{}", said(&output));
    let got = grpc_got.lock().unwrap().clone();
    assert!(
        got.starts_with(b"PRI * HTTP/2.0"),
        "{:?}",
        String::from_utf8_lossy(&got)
    );
}
