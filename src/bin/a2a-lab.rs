//! `a2a-lab`: the command-line face of the model.
fn main() {
    println!("a2a-lab {}", env!("CARGO_PKG_VERSION"));
}
