//! Every function, enum value, constant and struct of include/kbench.h must
//! be declared in kbench-sys: this reads the header and checks src/lib.rs.

const LIB_RS: &str = include_str!("../src/lib.rs");
const HEADER: &str = include_str!("../../../../include/kbench.h");

/// The identifier just before the first '(' of a declaration line.
fn function_name(line: &str) -> Option<&str> {
    let before = &line[..line.find('(')?];
    before
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
}

fn declared(what: &str) -> bool {
    LIB_RS.contains(what)
}

#[test]
fn every_function_is_declared() {
    let mut missing = Vec::new();
    let mut count = 0;
    for line in HEADER.lines().filter(|l| l.starts_with("KB_API ")) {
        let name = function_name(line).expect("KB_API line declares a function");
        count += 1;
        if !declared(&format!("pub fn {}(", name)) {
            missing.push(name.to_string());
        }
    }
    assert!(
        count > 30,
        "found only {} KB_API functions: is the header where this test looks?",
        count
    );
    assert!(
        missing.is_empty(),
        "functions missing from kbench-sys: {:?}",
        missing
    );
}

#[test]
fn every_constant_is_declared() {
    let mut missing = Vec::new();
    for line in HEADER.lines() {
        let t = line.trim_start();
        // Enum values ("KB_OK = 0,") and #defines ("#define KB_DEVICE_NONE (-1)").
        let name = if let Some(rest) = t.strip_prefix("#define ") {
            rest.split_whitespace().next()
        } else if t.starts_with("KB_") && t.contains('=') {
            t.split([' ', '=']).next()
        } else {
            None
        };
        let name = match name {
            Some(n) if n.starts_with("KB_") => n,
            _ => continue,
        };
        // Not part of the API: the export attribute and the header's
        // stringising helpers.
        if name == "KB_API" || name.starts_with("KB_STR") {
            continue;
        }
        if !declared(&format!("pub const {}:", name)) {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "constants missing from kbench-sys: {:?}",
        missing
    );
}

#[test]
fn every_type_is_declared() {
    let mut missing = Vec::new();
    for line in HEADER.lines() {
        let t = line.trim_start();
        let name = if let Some(rest) = t.strip_prefix("typedef struct ") {
            rest.split_whitespace().next()
        } else if let Some(rest) = t.strip_prefix("typedef enum ") {
            rest.split_whitespace().next()
        } else {
            None
        };
        if let Some(name) = name {
            let ok = declared(&format!("pub struct {} ", name))
                || declared(&format!("opaque!({});", name))
                || declared(&format!("pub type {} = c_int;", name));
            if !ok {
                missing.push(name.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "types missing from kbench-sys: {:?}",
        missing
    );
}
