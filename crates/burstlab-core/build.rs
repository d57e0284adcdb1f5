//! The core's identity: a hash of what decides a run's numbers, compiled in as
//! `BURSTLAB_CORE_IDENTITY` (`burstlab_core::CORE_IDENTITY`).
//!
//! Read with docs/topics/settled-runs.md ("Records proven current"). The sweep store
//! (python/burstlab/sweep.py, `run_key`) keys every run by it, so a run made by one core
//! is never reused as a run of another. What it hashes, in this order:
//!
//! 1. every file under `src/` except `src/bin/` (the library's source; the benchmark
//!    binary decides no run's numbers), by path relative to the crate, sorted, each as
//!    its path, its length and its bytes;
//! 2. this crate's `Cargo.toml` (dependency versions and features);
//! 3. the `[[package]]` entries of the workspace's `Cargo.lock` for the dependencies of
//!    `[dependencies]` and everything they depend on (name, version, source, checksum):
//!    a new `rand_xoshiro` or `serde_json` can change numbers (a float's parse), a new
//!    `pyo3` cannot. Without a `Cargo.lock`, or when an entry cannot be found, the whole
//!    file (or the marker `no Cargo.lock`) is hashed instead: conservative.
//!
//! Any change of these bytes, a comment included, makes a new identity: a refactor re-runs
//! its runs, never reuses them. The hash is SHA-256 (FIPS 180-4), written here because a
//! build script of a crate with six dependencies should not need a seventh; its first 16
//! hex digits are the identity.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    assert_eq!(
        hex(&sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "build.rs: SHA-256 of \"abc\" (FIPS 180-4 appendix B.1) is wrong"
    );
    let mut input = Vec::new();
    let mut files = Vec::new();
    collect(&dir.join("src"), &dir, &mut files);
    files.sort();
    for rel in &files {
        let bytes = fs::read(dir.join(rel)).expect("build.rs: cannot read a source file");
        push_item(&mut input, rel.as_bytes(), &bytes);
    }
    let manifest = fs::read(dir.join("Cargo.toml")).expect("build.rs: cannot read Cargo.toml");
    push_item(&mut input, b"Cargo.toml", &manifest);
    let lock_path = dir.join("../../Cargo.lock");
    let lock = fs::read_to_string(&lock_path).ok();
    let deps = lock
        .as_deref()
        .and_then(|l| locked_closure(&String::from_utf8_lossy(&manifest), l));
    match (&lock, deps) {
        (_, Some(entries)) => push_item(&mut input, b"Cargo.lock entries", entries.as_bytes()),
        (Some(l), None) => push_item(&mut input, b"Cargo.lock", l.as_bytes()),
        (None, None) => push_item(&mut input, b"Cargo.lock", b"no Cargo.lock"),
    }
    let id = hex(&sha256(&input));
    println!("cargo:rustc-env=BURSTLAB_CORE_IDENTITY={}", &id[..16]);
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
}

/// Appends `name` and `bytes`, each preceded by its length (8 bytes, little-endian), so
/// that no two different file lists give the same input.
fn push_item(out: &mut Vec<u8>, name: &[u8], bytes: &[u8]) {
    for part in [name, bytes] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
}

/// The files under `d`, as `/`-separated paths relative to `root`, skipping `src/bin`.
fn collect(d: &Path, root: &Path, out: &mut Vec<String>) {
    let entries = fs::read_dir(d).expect("build.rs: cannot list src/");
    for e in entries {
        let p = e.expect("build.rs: cannot list src/").path();
        let rel: Vec<String> = p
            .strip_prefix(root)
            .expect("under the crate")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        if p.is_dir() {
            if rel != "src/bin" {
                collect(&p, root, out);
            }
        } else {
            out.push(rel);
        }
    }
}

/// The names in the `[dependencies]` table of a Cargo.toml (`name = …` or
/// `name = { … }` lines; `[dependencies.name]` tables too).
fn direct_deps(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            if let Some(name) = line
                .strip_prefix("[dependencies.")
                .and_then(|s| s.strip_suffix(']'))
            {
                out.insert(name.trim().to_string());
            }
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            if let Some((k, _)) = line.split_once('=') {
                out.insert(k.trim().to_string());
            }
        }
    }
    out
}

/// The `[[package]]` entries of `lock` reachable from the direct dependencies, as text
/// (one `name version source checksum` line per entry, sorted); None when the lock file
/// cannot be read as Cargo writes it or a dependency has no entry.
fn locked_closure(manifest: &str, lock: &str) -> Option<String> {
    // name -> [(version, source, checksum, dependencies)]
    type Entry = (String, String, String, Vec<String>);
    let mut pkgs: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for block in lock.split("[[package]]").skip(1) {
        let mut name = None;
        let (mut version, mut source, mut checksum) = (String::new(), String::new(), String::new());
        let mut deps = Vec::new();
        let mut in_deps = false;
        for line in block.lines().map(str::trim) {
            if in_deps {
                if line.starts_with(']') {
                    in_deps = false;
                } else {
                    deps.push(line.trim_end_matches(',').trim_matches('"').to_string());
                }
                continue;
            }
            let Some((k, v)) = line.split_once('=') else {
                continue;
            };
            let v = v.trim();
            match k.trim() {
                "name" => name = Some(v.trim_matches('"').to_string()),
                "version" => version = v.trim_matches('"').to_string(),
                "source" => source = v.trim_matches('"').to_string(),
                "checksum" => checksum = v.trim_matches('"').to_string(),
                "dependencies" => {
                    if v == "[" {
                        in_deps = true;
                    } else {
                        let inner = v.trim_start_matches('[').trim_end_matches(']');
                        deps.extend(
                            inner
                                .split(',')
                                .map(|s| s.trim().trim_matches('"').to_string())
                                .filter(|s| !s.is_empty()),
                        );
                    }
                }
                _ => {}
            }
        }
        pkgs.entry(name?)
            .or_default()
            .push((version, source, checksum, deps));
    }
    let mut todo: Vec<String> = direct_deps(manifest).into_iter().collect();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(dep) = todo.pop() {
        // A lock file names a dependency `name` when one version is locked, else
        // `name version` (or `name version (source)`).
        let mut parts = dep.split_whitespace();
        let name = parts.next()?.to_string();
        let version = parts.next().map(str::to_string);
        let entries = pkgs.get(&name)?;
        let picked: Vec<&Entry> = entries
            .iter()
            .filter(|e| version.as_ref().is_none_or(|v| &e.0 == v))
            .collect();
        if picked.is_empty() || (version.is_none() && picked.len() > 1) {
            return None;
        }
        for e in picked {
            let line = format!("{name} {} {} {}", e.0, e.1, e.2);
            if seen.insert(line) {
                todo.extend(e.3.iter().cloned());
            }
        }
    }
    Some(seen.into_iter().collect::<Vec<_>>().join("\n"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `msg` (FIPS 180-4 §6.2).
fn sha256(msg: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    // §5.1.1: append 0x80, zeros to 56 mod 64 bytes, then the bit length (big-endian).
    let mut m = msg.to_vec();
    m.push(0x80);
    while m.len() % 64 != 56 {
        m.push(0);
    }
    m.extend_from_slice(&((msg.len() as u64).wrapping_mul(8)).to_be_bytes());
    for block in m.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for t in 16..64 {
            let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
            let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16]
                .wrapping_add(s0)
                .wrapping_add(w[t - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for t in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[t])
                .wrapping_add(w[t]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}
