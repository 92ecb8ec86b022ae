// Prints, one "first last" line per range, the non-ASCII scalar values that
// Rust's `{:?}` of a str escapes as \u{...}. spec/reference/rust_debug_escapes.cpp
// is made from this output (not built by CMake: run `cargo run --release`
// with the toolchain the reference reader is built with).
fn main() {
    let mut start: Option<u32> = None;
    for cp in 0x80u32..=0x110000 {
        let escaped = match char::from_u32(cp) {
            Some(c) => {
                let s = c.to_string();
                format!("{:?}", s) != format!("\"{}\"", s)
            }
            None => false,
        };
        match (escaped, start) {
            (true, None) => start = Some(cp),
            (false, Some(s)) => {
                println!("{:#x} {:#x}", s, cp - 1);
                start = None;
            }
            _ => {}
        }
    }
}
