//! docs/architecture.md is the picture of the shape: every file of `src/`
//! is named in it (a folder's `mod.rs` by its folder), so a file added
//! without a line there fails here.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// How the picture names a file: `name.rs`, or `folder/` for a folder's
/// `mod.rs`.
fn named_as(path: &Path) -> String {
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    match file {
        "mod.rs" => {
            let folder = path
                .parent()
                .and_then(Path::file_name)
                .and_then(|f| f.to_str());
            format!("{}/", folder.unwrap_or(""))
        }
        _ => file.to_string(),
    }
}

#[test]
fn the_architecture_picture_names_every_file_of_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let picture = std::fs::read_to_string(root.join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let mut found = Vec::new();
    sources(&root.join("src"), &mut found);
    assert!(
        found.len() > 100,
        "src/ was not walked: {} files",
        found.len()
    );
    let unnamed: Vec<String> = found
        .iter()
        .filter(|path| !picture.contains(&named_as(path)))
        .map(|path| {
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "docs/architecture.md does not name: {unnamed:?}"
    );
}
