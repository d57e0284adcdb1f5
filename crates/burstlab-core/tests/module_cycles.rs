//! No import cycles between the core's modules.
//!
//! Reads `src/` and, in every folder (the crate root included), builds a graph of its
//! direct children (a file `x` plus the Rust extension, or a folder `x/`, is the child `x`; `mod.rs`, `lib.rs`
//! and `bin/` are not children): an edge `a → b` when some file of `a` names `b` by a
//! path, `crate::b` at the root, `crate::f::b`, `super::b` or `self::b` further down.
//! Comments and string literals do not count; test code does. A cycle among the
//! children of one folder fails the test, named with the file and line of each edge.
//!
//! The facade of a folder (`mod.rs`, or `lib.rs` for the root) is not a child: it may
//! declare and re-export its children, which use what it defines.
//!
//! [`ALLOWED`] lists the cycles known and being removed elsewhere; one that is fixed
//! must leave the list (the test fails on an allowed cycle that no longer exists).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Cycles allowed for now, as (folder, the modules of the cycle, sorted). Empty: the
/// last one (`src/tcp`: the old `cc` module and its `cc_*` controllers through `testkit`, `sender`
/// and `ns2`) went when the controllers moved into `tcp/cc/` (issue 51 item 3).
const ALLOWED: &[(&str, &[&str])] = &[];

/// A module's path from the crate root, e.g. `["tcp", "cc_cubic"]`.
type ModPath = Vec<String>;

/// One reference found: the absolute path named, the file and line naming it.
struct Ref {
    target: ModPath,
    file: PathBuf,
    line: usize,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of the library under `dir` (not `src/bin/`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("readable src dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p == src_dir().join("bin") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file defines: the file `b` under `src/a` and the folder `src/a/b` with its `mod` file are `["a", "b"]`,
/// `src/lib.rs` is `[]`.
fn module_of(file: &Path) -> ModPath {
    let rel = file.strip_prefix(src_dir()).expect("a file under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The children of the folder of module `m` (files and folders, by module name).
fn children(m: &[String]) -> BTreeSet<String> {
    let dir = m.iter().fold(src_dir(), |d, p| d.join(p));
    let mut out = BTreeSet::new();
    let Ok(rd) = fs::read_dir(&dir) else {
        return out;
    };
    for e in rd {
        let p = e.expect("dir entry").path();
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        if p.is_dir() {
            if !(m.is_empty() && name == "bin") {
                out.insert(name);
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if !matches!(stem, "mod" | "lib" | "main") {
                out.insert(stem.to_string());
            }
        }
    }
    out
}

/// The text with comments, string and character literals blanked out (newlines kept,
/// so line numbers stay right).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_char_before(&b, i)
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &x in &b[i..j.min(b.len())] {
                out.push(blank(x));
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            let lit_end = if next == Some('\\') {
                (i + 2..b.len()).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match lit_end {
                Some(k) => {
                    for _ in i..=k {
                        out.push(' ');
                    }
                    i = k + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// Parses an identifier at `i` (after spaces).
fn ident(b: &[char], mut i: usize) -> Option<(String, usize)> {
    while i < b.len() && b[i].is_whitespace() {
        i += 1;
    }
    let start = i;
    while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
        i += 1;
    }
    (i > start).then(|| (b[start..i].iter().collect(), i))
}

/// Skips spaces, then `::` if it is there.
fn colons(b: &[char], mut i: usize) -> Option<usize> {
    while i < b.len() && b[i].is_whitespace() {
        i += 1;
    }
    (b.get(i) == Some(&':') && b.get(i + 1) == Some(&':')).then_some(i + 2)
}

/// The paths of a use tree (or a plain path) starting at `i`, each prefixed by
/// `prefix`: `a::b`, `a::{b, c::d}`, `{a, b}`.
fn use_tree(b: &[char], i: usize, prefix: ModPath, out: &mut Vec<ModPath>) {
    let mut j = i;
    while j < b.len() && b[j].is_whitespace() {
        j += 1;
    }
    if b.get(j) == Some(&'{') {
        j += 1;
        loop {
            use_tree(b, j, prefix.clone(), out);
            // Move past this item: to the next comma at depth 0 or the closing brace.
            let mut depth = 0;
            while j < b.len() {
                match b[j] {
                    '{' => depth += 1,
                    '}' if depth == 0 => return,
                    '}' => depth -= 1,
                    ',' if depth == 0 => break,
                    _ => {}
                }
                j += 1;
            }
            j += 1;
            if j >= b.len() {
                return;
            }
        }
    }
    let mut path = prefix;
    let mut k = j;
    while let Some((id, after)) = ident(b, k) {
        path.push(id);
        match colons(b, after) {
            Some(n) => {
                let mut m = n;
                while m < b.len() && b[m].is_whitespace() {
                    m += 1;
                }
                if b.get(m) == Some(&'{') {
                    use_tree(b, m, path, out);
                    return;
                }
                k = n;
            }
            None => break,
        }
    }
    out.push(path);
}

/// Every path that starts with `crate`, `super` or `self` in `file`, made absolute.
fn references(file: &Path) -> Vec<Ref> {
    let text = code_only(&fs::read_to_string(file).expect("readable source"));
    let b: Vec<char> = text.chars().collect();
    let here = module_of(file);
    let mut refs = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if ident_char_before(&b, i) || !b[i].is_alphabetic() {
            i += 1;
            continue;
        }
        let Some((word, after)) = ident(&b, i) else {
            i += 1;
            continue;
        };
        let mut base: Option<ModPath> = match word.as_str() {
            "crate" => Some(Vec::new()),
            "self" => Some(here.clone()),
            "super" => Some(here[..here.len().saturating_sub(1)].to_vec()),
            _ => None,
        };
        let mut k = after;
        let Some(start) = base.as_ref().and_then(|_| colons(&b, k)) else {
            i = after;
            continue;
        };
        k = start;
        // `super::super::...`
        while let Some((w, a2)) = ident(&b, k) {
            if w != "super" {
                break;
            }
            let bp = base.as_mut().expect("a base");
            bp.pop();
            match colons(&b, a2) {
                Some(n) => k = n,
                None => break,
            }
        }
        let line = 1 + b[..i].iter().filter(|&&c| c == '\n').count();
        let mut paths = Vec::new();
        use_tree(&b, k, base.take().expect("a base"), &mut paths);
        for target in paths {
            refs.push(Ref {
                target,
                file: file.to_path_buf(),
                line,
            });
        }
        i = k;
    }
    refs
}

/// Per folder (module path): its children's graph, each edge with where it is seen.
type Graphs = BTreeMap<ModPath, BTreeMap<(String, String), (PathBuf, usize)>>;

fn graphs() -> Graphs {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let mut g: Graphs = BTreeMap::new();
    for f in &files {
        let here = module_of(f);
        for r in references(f) {
            // Every folder above `here` in which `here` and the target are different
            // children.
            for depth in 0..here.len() {
                let folder = &here[..depth];
                if r.target.len() <= depth || r.target[..depth] != *folder {
                    continue;
                }
                let (from, to) = (&here[depth], &r.target[depth]);
                if from == to || !children(folder).contains(to) {
                    continue;
                }
                g.entry(folder.to_vec())
                    .or_default()
                    .entry((from.clone(), to.clone()))
                    .or_insert((r.file.clone(), r.line));
            }
        }
    }
    g
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<(String, String), (PathBuf, usize)>) -> Vec<Vec<String>> {
    let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default();
    }
    struct T<'a> {
        adj: &'a BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for &w in &t.adj[v] {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().expect("on the stack");
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        adj: &adj,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in adj.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn folder_name(f: &[String]) -> String {
    if f.is_empty() {
        "src".to_string()
    } else {
        format!("src/{}", f.join("/"))
    }
}

#[test]
fn no_module_imports_another_that_imports_it() {
    let g = graphs();
    assert!(
        g.get(&Vec::new()).is_some_and(|e| !e.is_empty()),
        "the crate root's modules reference each other: the scan found nothing"
    );
    let mut found = Vec::new();
    let mut report = String::new();
    for (folder, edges) in &g {
        for comp in cycles(edges) {
            let name = folder_name(folder);
            found.push((name.clone(), comp.clone()));
            let allowed = ALLOWED
                .iter()
                .any(|(f, c)| *f == name && c.iter().copied().eq(comp.iter().map(|s| s.as_str())));
            if allowed {
                continue;
            }
            report.push_str(&format!("cycle in {name}: {}\n", comp.join(" ↔ ")));
            for ((a, b), (file, line)) in edges {
                if comp.contains(a) && comp.contains(b) {
                    let rel = file.strip_prefix(src_dir()).unwrap_or(file);
                    report.push_str(&format!("  {a} → {b}  (src/{}:{line})\n", rel.display()));
                }
            }
        }
    }
    for (f, c) in ALLOWED {
        let still = found
            .iter()
            .any(|(n, comp)| n == f && c.iter().copied().eq(comp.iter().map(|s| s.as_str())));
        if !still {
            report.push_str(&format!(
                "the allowed cycle {f}: {} is gone: remove it from ALLOWED\n",
                c.join(" ↔ ")
            ));
        }
    }
    assert!(
        report.is_empty(),
        "import cycles between modules:\n{report}"
    );
}

#[test]
fn the_scanner_resolves_paths_and_ignores_comments() {
    let src = "use crate::{a::X, b::{c, d::Y}};\n// crate::zzz\nlet s = \"crate::q\";\nsuper::super::e::f();\n";
    let b: Vec<char> = code_only(src).chars().collect();
    let mut paths = Vec::new();
    use_tree(&b, 11, Vec::new(), &mut paths);
    let want: Vec<ModPath> = vec![
        vec!["a".into(), "X".into()],
        vec!["b".into(), "c".into()],
        vec!["b".into(), "d".into(), "Y".into()],
    ];
    assert_eq!(paths, want);
    let text = code_only(src);
    assert!(!text.contains("zzz") && !text.contains("crate::q"));
    let found = cycles(
        &[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
            .iter()
            .map(|(x, y)| ((x.to_string(), y.to_string()), (PathBuf::new(), 0)))
            .collect(),
    );
    assert_eq!(found, vec![vec!["a".to_string(), "b".into(), "c".into()]]);
}
