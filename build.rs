//! With the `page` feature, lists the page's release bundle (`dist/`, or
//! the folder `A2A_LAB_PAGE_DIR` names) for `a2a-lab serve` to embed.
//! Without it, does nothing: the page's own build and the plain CLI never
//! read `dist/`.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=A2A_LAB_PAGE_DIR");
    // The page itself (wasm32) carries no CLI, so nothing to embed there;
    // `--all-features` lints of it need no bundle built first.
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    if std::env::var_os("CARGO_FEATURE_PAGE").is_none() || wasm {
        return;
    }
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dir =
        std::env::var_os("A2A_LAB_PAGE_DIR").map_or_else(|| manifest.join("dist"), PathBuf::from);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) => panic!(
            "the `page` feature embeds the page's release bundle, and {} cannot be read ({e}): run `trunk build --release` first",
            dir.display()
        ),
    };
    assert!(
        names.iter().any(|n| n == "index.html"),
        "{} holds no index.html: run `trunk build --release` first",
        dir.display()
    );
    names.sort();
    let mut out = String::from("/// Each file of the page's bundle: its name and bytes.\npub(super) static FILES: &[(&str, &[u8])] = &[\n");
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        out.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let target =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("page_files.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
