//! A TOML syntax error names its line and column (issue 55): the parser's span, turned
//! into 1-based line and column by `scenario/spec.rs`.

use burstlab_core::scenario::ScenarioSpec;

fn error(text: &str) -> String {
    match ScenarioSpec::from_toml_str(text) {
        Ok(_) => panic!("parsed: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_unquoted_string_names_its_line_and_column() {
    let e = error("name = \"x\"\n[sim]\nduration = 10s\n");
    assert!(e.contains("malformed TOML"), "{e}");
    assert!(e.ends_with("(at line 3, column 12)"), "{e}");
}

#[test]
fn columns_count_characters_not_bytes() {
    // "é" is two bytes: the `x` after it is the 12th character of line 1.
    let e = error("name = \"é\" x\n");
    assert!(e.ends_with("(at line 1, column 12)"), "{e}");
}

#[test]
fn an_error_at_the_end_of_the_text_has_a_position() {
    let e = error("[sim\n");
    assert!(e.contains("(at line 1, column "), "{e}");
}
