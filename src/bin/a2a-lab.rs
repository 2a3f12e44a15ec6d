//! `a2a-lab`: the command-line face of the model (SPEC §5).
//!
//! Exit codes: 0 nothing broken, 1 something broken (`check`), 2 bad input.

/// The command line is native only: on wasm32 this binary does nothing.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::io::Write;
    use std::process::ExitCode;

    use a2a_lab::cli::{run, Files, Output};

    /// The real file system.
    struct Disk;

    impl Files for Disk {
        fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
            read_file(path)
        }

        fn open(&mut self, path: &str) -> Result<Box<dyn std::io::Read>, String> {
            let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
            Ok(Box::new(file))
        }
    }

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let Output { stderr, code } = run(&args, &mut Disk, &mut stdout);
        let _ = stdout.flush();
        let _ = std::io::stderr().write_all(stderr.as_bytes());
        ExitCode::from(code)
    }

    /// Reads a file, refusing one larger than the lab reads before loading it.
    fn read_file(path: &str) -> Result<Vec<u8>, String> {
        let limit = a2a_lab::model::evidence::export::MAX_FILE_BYTES as u64;
        let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
        if meta.len() > limit {
            return Err(format!(
                "{path}: {} bytes is larger than the {limit}-byte limit",
                meta.len()
            ));
        }
        std::fs::read(path).map_err(|e| format!("{path}: {e}"))
    }
}
