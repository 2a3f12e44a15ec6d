//! Shared by the command line's tests: `a2a-lab` run in process over files
//! held in memory, and the built binary run on files written to a folder
//! of the test's own. Native only, as the command line is: the tests that
//! also build for wasm32 use `model_support`. (Each test crate uses some
//! of it.)
#![allow(dead_code)]

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_lab::cli::{run, Files};

/// Files in memory for the in-process command line: each by its name, or
/// one file whatever the path asked for.
#[derive(Default)]
pub struct MemoryFiles {
    named: HashMap<String, Vec<u8>>,
    any: Option<Vec<u8>>,
}

impl MemoryFiles {
    /// `bytes` as every file the command names; with none, no file can be
    /// read.
    pub fn one(bytes: Option<&[u8]>) -> MemoryFiles {
        MemoryFiles {
            named: HashMap::new(),
            any: bytes.map(<[u8]>::to_vec),
        }
    }

    /// These files by name, and no other.
    pub fn named(files: &[(&str, Vec<u8>)]) -> MemoryFiles {
        MemoryFiles {
            named: files
                .iter()
                .map(|(name, bytes)| (name.to_string(), bytes.clone()))
                .collect(),
            any: None,
        }
    }
}

impl Files for MemoryFiles {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        self.named
            .get(path)
            .or(self.any.as_ref())
            .cloned()
            .ok_or_else(|| format!("{path}: no such file"))
    }

    fn open(&mut self, path: &str) -> Result<Box<dyn std::io::Read>, String> {
        Ok(Box::new(std::io::Cursor::new(self.read(path)?)))
    }
}

/// `a2a-lab ARGS` run in process, with `file` as every file it names (none:
/// no file can be read): its stdout, stderr and exit code. A command that
/// fails prints nothing on stdout.
pub fn cli(args: &[&str], file: Option<&[u8]>) -> (String, String, u8) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut stdout = Vec::new();
    let out = run(&args, &mut MemoryFiles::one(file), &mut stdout);
    let stdout = String::from_utf8(stdout).expect("stdout is UTF-8");
    assert!(
        out.code == 0 || out.code == 1 || stdout.is_empty(),
        "a failing command printed {stdout}"
    );
    (stdout, out.stderr, out.code)
}

/// The built `a2a-lab` binary, run with `args` to its end.
pub fn binary<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_a2a-lab"))
        .args(args)
        .output()
        .expect("a2a-lab runs")
}

/// A folder of one test's own under the system's temp folder, for the
/// files it gives the binary (the tests run side by side); removed when
/// dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new empty folder, `a2a-lab-NAME-…`.
    pub fn new(name: &str) -> Scratch {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("a2a-lab-{name}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes the file `name` in the folder; returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
