//! Traces streamed to CSV files (`sim.trace.dir`): each trace keeps at most
//! [`CHUNK_ROWS`] records in memory and appends them to its file through a buffered
//! writer whenever that many have gathered, so a traced run of any length holds a
//! bounded amount of trace.
//!
//! The files are byte for byte what the Python `Result.to_dir` (and so `burstlab run
//! --out`) writes for the same table held in memory: the columns of
//! [`TraceRow::columns`](crate::stats::TraceRow::columns), then the stamp columns
//! `scenario, seed, replication, burstlab_version`; floats in Python's `repr` form,
//! booleans as `True`/`False`, text quoted as Python's `csv` module quotes it, `\n`
//! line ends.

use crate::stats::{Column, StreamedTrace};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Records a streamed trace holds before it writes them out.
pub const CHUNK_ROWS: usize = 8192;

/// The stamp columns every result CSV carries, their names and (one line's worth of)
/// values, each written with a leading comma.
#[derive(Clone, Debug)]
pub struct Stamp {
    header: String,
    row: String,
}

impl Stamp {
    pub fn new(scenario: &str, seed: u64, replication: u64, version: &str) -> Stamp {
        let mut row = String::from(",");
        csv_field(scenario, &mut row);
        row += &format!(",{seed},{replication},");
        csv_field(version, &mut row);
        row.push('\n');
        Stamp {
            header: ",scenario,seed,replication,burstlab_version\n".into(),
            row,
        }
    }
}

/// One trace's CSV file, open for appending chunks of rows.
pub struct TraceFile {
    table: &'static str,
    path: PathBuf,
    out: BufWriter<File>,
    rows: u64,
    stamp: Stamp,
    line: String,
}

impl TraceFile {
    /// Creates `<dir>/<table>.csv` (and `dir` if needed) and writes the header.
    pub fn create(
        dir: &Path,
        table: &'static str,
        names: &[&str],
        stamp: &Stamp,
    ) -> std::io::Result<TraceFile> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{table}.csv"));
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        let mut head = String::new();
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                head.push(',');
            }
            csv_field(n, &mut head);
        }
        head += &stamp.header;
        out.write_all(head.as_bytes())?;
        Ok(TraceFile {
            table,
            path,
            out,
            rows: 0,
            stamp: stamp.clone(),
            line: String::new(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the rows of `cols` (columns of equal length).
    pub fn write(&mut self, cols: &[(&str, Column)]) -> std::io::Result<()> {
        let n = cols.first().map_or(0, |c| c.1.len());
        for i in 0..n {
            self.line.clear();
            for (j, (_, c)) in cols.iter().enumerate() {
                if j > 0 {
                    self.line.push(',');
                }
                cell(c, i, &mut self.line);
            }
            self.line += &self.stamp.row;
            self.out.write_all(self.line.as_bytes())?;
        }
        self.rows += n as u64;
        Ok(())
    }

    /// Appends one row whose cells (comma-separated, without the stamp) are `cells`:
    /// for a table whose rows carry text (`fct`, `world/workloads.rs`).
    pub fn write_row(&mut self, cells: &str) -> std::io::Result<()> {
        self.line.clear();
        self.line.push_str(cells);
        self.line += &self.stamp.row;
        self.out.write_all(self.line.as_bytes())?;
        self.rows += 1;
        Ok(())
    }

    /// Flushes and closes the file; a trace without rows leaves no file (as an empty
    /// optional table is not written).
    pub fn finish(self) -> std::io::Result<StreamedTrace> {
        let TraceFile {
            table,
            path,
            out,
            rows,
            ..
        } = self;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all().or_else(|e| match e.kind() {
            // Some file systems cannot sync; the data has been written all the same.
            std::io::ErrorKind::InvalidInput | std::io::ErrorKind::Unsupported => Ok(()),
            _ => Err(e),
        })?;
        drop(file);
        if rows == 0 {
            std::fs::remove_file(&path)?;
        }
        Ok(StreamedTrace { table, path, rows })
    }
}

fn cell(c: &Column, i: usize, out: &mut String) {
    use std::fmt::Write as _;
    match c {
        Column::F64(v) => py_float(v[i], out),
        Column::U64(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Column::I64(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Column::Bool(v) => out.push_str(if v[i] { "True" } else { "False" }),
        Column::Str(v) => csv_field(v[i], out),
    }
}

/// Appends `s` as Python's `csv` writer does (minimal quoting): quoted, with inner
/// quotes doubled, when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str, out: &mut String) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Appends `x` as Python's `repr(float)` writes it: the shortest digits that read back
/// to `x`, positional from 1e-4 up to below 1e16 (always with a `.`), exponential
/// outside (`1e-05`, `1.5e+16`), and `nan`, `inf`, `-inf`.
pub fn py_float(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-5".
    let s = format!("{x:e}");
    let (mant, exp) = s.split_once('e').expect("LowerExp writes an exponent");
    let exp: i32 = exp.parse().expect("LowerExp writes an integer exponent");
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let decpt = exp + 1; // x = 0.DIGITS × 10^decpt
    if neg {
        out.push('-');
    }
    if decpt > -4 && decpt <= 16 {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(&digits);
        } else if (decpt as usize) < digits.len() {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        } else {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', decpt as usize - digits.len()));
            out.push_str(".0");
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        out.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> String {
        let mut s = String::new();
        py_float(x, &mut s);
        s
    }

    /// The forms Python's `repr` gives (checked against CPython 3.11).
    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (123.456, "123.456"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (123456789012345.6, "123456789012345.6"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (-2.5e-5, "-2.5e-05"),
            (1.0 / 3.0, "0.3333333333333333"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(f(x), want, "{x:e}");
        }
    }

    #[test]
    fn text_is_quoted_like_python_csv() {
        let mut s = String::new();
        csv_field("a,b", &mut s);
        s.push('|');
        csv_field("say \"hi\"", &mut s);
        s.push('|');
        csv_field("plain", &mut s);
        assert_eq!(s, "\"a,b\"|\"say \"\"hi\"\"\"|plain");
    }
}
