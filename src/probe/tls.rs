//! TLS, one rule for both bindings: an `https://` agent (its card, its
//! JSON-RPC and REST calls, through ureq) and a `grpcs://` or `https://`
//! gRPC interface (through tonic) are trusted by the same roots, Mozilla's
//! (webpki-roots, built in), or, with `--ca-file`, only the CA
//! certificates that file holds (as curl's `--cacert`: a test deployment
//! signed by a private CA). Both speak it with rustls on one crypto
//! provider (ring). A handshake refused is said as TLS, with what to do,
//! never as an agent that cannot be reached.

use std::error::Error;
use std::path::Path;

use ureq::tls::{parse_pem, Certificate, PemItem, RootCerts, TlsConfig};

/// The certificates an agent's TLS certificate must chain to.
#[derive(Clone, Default)]
pub struct Trust {
    /// `--ca-file`: its PEM text and the certificates in it; `None`, the
    /// public roots.
    ca: Option<(Vec<u8>, Vec<Certificate<'static>>)>,
}

impl Trust {
    /// The CA certificates in the PEM file at `path` (`--ca-file`), in
    /// place of the public roots. A file that holds none is refused here,
    /// before anything is contacted.
    pub fn ca_file(path: &Path) -> Result<Trust, String> {
        let said = |why: &dyn std::fmt::Display| format!("--ca-file {}: {why}", path.display());
        let pem = std::fs::read(path).map_err(|e| said(&e))?;
        let mut certs = Vec::new();
        for item in parse_pem(&pem) {
            if let PemItem::Certificate(cert) = item.map_err(|e| said(&e))? {
                certs.push(cert);
            }
        }
        if certs.is_empty() {
            return Err(said(
                &"no certificate in it (PEM, `-----BEGIN CERTIFICATE-----`)",
            ));
        }
        Ok(Trust {
            ca: Some((pem, certs)),
        })
    }

    /// ureq's TLS, for the card and the HTTP bindings.
    pub fn ureq(&self) -> TlsConfig {
        let roots = match &self.ca {
            Some((_, certs)) => RootCerts::new_with_certs(certs),
            None => RootCerts::WebPki,
        };
        TlsConfig::builder().root_certs(roots).build()
    }

    /// tonic's TLS, for a gRPC interface that speaks it.
    pub fn tonic(&self) -> tonic::transport::ClientTlsConfig {
        let config = tonic::transport::ClientTlsConfig::new();
        match &self.ca {
            Some((pem, _)) => {
                config.ca_certificate(tonic::transport::Certificate::from_pem(pem.clone()))
            }
            None => config.with_webpki_roots(),
        }
    }
}

/// The TLS refusal somewhere in `error`'s chain, said for people (`url`
/// is what the probe was talking to); `None` when TLS is not why.
pub fn refusal(url: &str, error: &(dyn Error + 'static)) -> Option<String> {
    let refused = std::iter::successors(Some(error), |e| (*e).source()).find_map(|e| {
        // An IO error shows the error it wraps but does not give it as its
        // source: rustls's comes through tokio-rustls and ureq as one.
        e.downcast_ref::<rustls::Error>().or_else(|| {
            e.downcast_ref::<std::io::Error>()?
                .get_ref()?
                .downcast_ref::<rustls::Error>()
        })
    })?;
    let hint = match refused {
        rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented => {
            "; an agent whose certificate a private CA signed: give the CA's certificate \
             with --ca-file PEM_FILE"
        }
        _ => "",
    };
    Some(format!("TLS with {url} was refused: {refused}{hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_a_certificate_is_refused_before_any_call() {
        let dir = std::env::temp_dir().join(format!("a2a-lab-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let e = Trust::ca_file(&empty).err().unwrap();
        assert!(
            e.starts_with("--ca-file ") && e.contains("no certificate"),
            "{e}"
        );
        let e = Trust::ca_file(&dir.join("absent.pem")).err().unwrap();
        assert!(e.starts_with("--ca-file "), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_refused_handshake_is_found_inside_an_io_error() {
        let refused = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let io = std::io::Error::new(std::io::ErrorKind::InvalidData, refused);
        let said = refusal("https://h:1", &io).unwrap();
        assert!(
            said.starts_with("TLS with https://h:1 was refused: invalid peer certificate"),
            "{said}"
        );
        assert!(said.contains("--ca-file"), "{said}");
        let other = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert_eq!(refusal("https://h:1", &other), None);
    }
}
