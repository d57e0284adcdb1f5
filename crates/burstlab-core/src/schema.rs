//! The scenario schema as data, for the generated scenario reference
//! (`docs/reference/scenario.md`, built by `docs/_ext/burstlab_docs.py`).
//!
//! Read first: [`scenario_keys`]. Nothing here is kept by hand: the keys are found by
//! deserialising a [`ScenarioSpec`] from a deserialiser that records what serde asks for
//! at each key (a table's fields, an enum's variants, a number, a string…), so the list is
//! the one the serde derives of `scenario/` accept, aliases included, and it cannot drift
//! from the parser. The TCP defaults come from [`crate::tcp::default_config`].

use crate::scenario::ScenarioSpec;
use crate::tcp::{default_config, Profile, Variant};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess};
use serde::de::{IntoDeserializer, VariantAccess, Visitor};
use serde::Deserialize;
use std::cell::RefCell;
use std::fmt;

/// One key the scenario parser accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaKey {
    /// Dotted path with `[]` for an element of an array, e.g. `flows[].mss` (the
    /// Rust field names; [`SchemaKey::aliases`] has the singular forms TOML files use).
    pub path: String,
    /// What serde reads there: `table`, `list`, `bool`, `integer`, `float`, `string`,
    /// `number or string` (a quantity with units: the Rust type says which) or `enum`.
    pub kind: &'static str,
    /// For a table: the Rust struct that holds it (`FlowSpec`); for an enum: its name.
    pub rust_type: String,
    /// For an enum: the accepted values.
    pub values: Vec<String>,
    /// Other names accepted for this key (serde aliases).
    pub aliases: Vec<String>,
}

/// Every key of the scenario schema, in declaration order (tables before their keys).
pub fn scenario_keys() -> Vec<SchemaKey> {
    // serde lists a field's aliases among its names; feeding two names of one field makes
    // it report "duplicate field `primary`". The walk then starts again, either with that
    // alias skipped or, when the primary name was the second fed, with the primary fed
    // first, until it gets through.
    let mut skip: Vec<(String, String)> = Vec::new(); // (path of alias, path of primary)
    let mut first: Vec<String> = Vec::new(); // primary names to feed before their aliases
    loop {
        let out = RefCell::new(Vec::new());
        let last = RefCell::new(String::new());
        let walk = Walk {
            path: "",
            out: &out,
            last: &last,
            skip: &skip,
            first: &first,
        };
        match ScenarioSpec::deserialize(walk) {
            Ok(_) => {
                let mut keys = out.into_inner();
                for (alias, key) in &skip {
                    if let Some(k) = keys.iter_mut().find(|k| &k.path == key) {
                        let name = alias.rsplit('.').next().unwrap_or(alias);
                        k.aliases.push(name.to_string());
                    }
                }
                workload_size_table(&mut keys);
                return keys;
            }
            Err(WalkError(msg)) => {
                assert!(
                    msg.starts_with("duplicate field"),
                    "schema walk failed: {msg}"
                );
                let alias = last.into_inner();
                let field = msg.split('`').nth(1).expect("a field name");
                let primary = match alias.rsplit_once('.') {
                    Some((parent, _)) => format!("{parent}.{field}"),
                    None => field.to_string(),
                };
                if alias == primary {
                    assert!(!first.contains(&primary), "schema walk loops at {primary}");
                    first.push(primary);
                } else {
                    assert!(
                        !skip.iter().any(|s| s.0 == alias),
                        "schema walk loops at {alias}"
                    );
                    skip.push((alias, primary));
                }
            }
        }
    }
}

/// `workload.size` is a size or a table (`SizeSpec`): the walk, which feeds each key a
/// number, sees the size. Its table's keys are walked here from `SizeDistSpec`, and the
/// key is listed as that table.
fn workload_size_table(keys: &mut Vec<SchemaKey>) {
    const AT: &str = "workloads[].size";
    let Some(at) = keys.iter().position(|k| k.path == AT) else {
        return;
    };
    let out = RefCell::new(Vec::new());
    let last = RefCell::new(String::new());
    let walk = Walk {
        path: AT,
        out: &out,
        last: &last,
        skip: &[],
        first: &[],
    };
    crate::scenario::SizeDistSpec::deserialize(walk).expect("the size table walks");
    keys.splice(at..=at, out.into_inner());
}

/// The TCP defaults of a profile (`"ns2"` or `"rfc"`), as `(scenario key, value)`
/// pairs with units (durations in seconds, sizes in bytes). The variant does not change
/// them.
pub fn tcp_defaults(profile: &str) -> Option<Vec<(&'static str, String)>> {
    let p = match profile {
        "ns2" => Profile::Ns2,
        "rfc" => Profile::Rfc,
        _ => return None,
    };
    let c = default_config(Variant::Reno, p);
    let s = |t: crate::units::SimTime| format!("{} s", t.as_secs_f64());
    let ssthresh = if c.init_ssthresh == u32::MAX {
        "infinite".to_string()
    } else {
        c.init_ssthresh.to_string()
    };
    Some(vec![
        ("variant", "reno".to_string()),
        ("cc", "aimd".to_string()),
        ("recovery", "rfc6675".to_string()),
        ("cubic_ssthresh", "flight_size".to_string()),
        ("profile", "ns2".to_string()),
        ("mss", format!("{} B", c.mss)),
        ("header_bytes", format!("{} B", c.header_bytes)),
        ("ack_bytes", format!("{} B", c.ack_bytes)),
        ("wm", c.wm.to_string()),
        ("init_cwnd", c.init_cwnd.to_string()),
        ("init_ssthresh", ssthresh),
        ("dupack_thresh", c.dupack_thresh.to_string()),
        ("b", if c.delayed_ack { "2" } else { "1" }.to_string()),
        ("delack_timeout", s(c.delack_timeout)),
        ("min_rto", s(c.min_rto)),
        ("max_rto", s(c.max_rto)),
        ("init_rto", s(c.init_rto)),
        ("clock_granularity", s(c.clock_granularity)),
        ("max_backoff", c.max_backoff.to_string()),
        ("sack_blocks", c.sack_blocks.to_string()),
        ("syn", c.syn.to_string()),
        ("limited_transmit", c.limited_transmit.to_string()),
        ("precision_reduce", c.precision_reduce.to_string()),
        ("bug_fix", c.bug_fix.to_string()),
        ("newreno_changes1", c.newreno_changes1.to_string()),
        (
            "partial_window_deflation",
            c.partial_window_deflation.to_string(),
        ),
        ("sack_partial_ack", c.sack_partial_ack.to_string()),
        (
            "clock_phase",
            match c.clock_phase {
                Some(x) => format!("{x} s"),
                None => "drawn per flow".to_string(),
            },
        ),
    ])
}

/// [`scenario_keys`] and [`tcp_defaults`] as one JSON document (what the Python
/// binding's `scenario_schema()` returns).
pub fn schema_json() -> String {
    use serde_json::{json, Value};
    let keys: Vec<Value> = scenario_keys()
        .into_iter()
        .map(|k| {
            json!({"path": k.path, "kind": k.kind, "rust_type": k.rust_type,
                   "values": k.values, "aliases": k.aliases})
        })
        .collect();
    let tcp = |p| {
        let m: serde_json::Map<String, Value> = tcp_defaults(p)
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::String(v)))
            .collect();
        Value::Object(m)
    };
    json!({"keys": keys, "tcp_defaults": {"ns2": tcp("ns2"), "rfc": tcp("rfc")}}).to_string()
}

// ---------------------------------------------------------------------------------------
// The recording deserialiser.

#[derive(Debug)]
struct WalkError(String);

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for WalkError {}
impl de::Error for WalkError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WalkError(msg.to_string())
    }
}

#[derive(Clone, Copy)]
struct Walk<'a> {
    path: &'a str,
    out: &'a RefCell<Vec<SchemaKey>>,
    /// The path of the last key fed to a table (an alias, when serde calls it a duplicate).
    last: &'a RefCell<String>,
    skip: &'a [(String, String)],
    first: &'a [String],
}

// `path` is borrowed, so a child walk needs an owned string kept alive by its caller.
struct Owned<'a> {
    path: String,
    out: &'a RefCell<Vec<SchemaKey>>,
    last: &'a RefCell<String>,
    skip: &'a [(String, String)],
    first: &'a [String],
}

impl<'a> Owned<'a> {
    fn walk(&self) -> Walk<'_> {
        Walk {
            path: &self.path,
            out: self.out,
            last: self.last,
            skip: self.skip,
            first: self.first,
        }
    }
}

impl<'a> Walk<'a> {
    fn child(&self, name: &str) -> Owned<'a> {
        let path = if self.path.is_empty() {
            name.to_string()
        } else if name == "[]" {
            format!("{}[]", self.path)
        } else {
            format!("{}.{name}", self.path)
        };
        Owned {
            path,
            out: self.out,
            last: self.last,
            skip: self.skip,
            first: self.first,
        }
    }
    fn record(&self, kind: &'static str, rust_type: &str, values: &[&str]) {
        let mut out = self.out.borrow_mut();
        if self.path.is_empty() || out.iter().any(|k| k.path == self.path) {
            return;
        }
        out.push(SchemaKey {
            path: self.path.to_string(),
            kind,
            rust_type: rust_type.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
            aliases: Vec::new(),
        });
    }
}

macro_rules! scalar {
    ($($method:ident => $kind:literal, $visit:ident($value:expr);)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
            self.record($kind, "", &[]);
            v.$visit($value)
        }
    )*};
}

impl<'de, 'a> Deserializer<'de> for Walk<'a> {
    type Error = WalkError;

    scalar! {
        deserialize_bool => "bool", visit_bool(false);
        deserialize_i8 => "integer", visit_i64(1);
        deserialize_i16 => "integer", visit_i64(1);
        deserialize_i32 => "integer", visit_i64(1);
        deserialize_i64 => "integer", visit_i64(1);
        deserialize_u8 => "integer", visit_u64(1);
        deserialize_u16 => "integer", visit_u64(1);
        deserialize_u32 => "integer", visit_u64(1);
        deserialize_u64 => "integer", visit_u64(1);
        deserialize_f32 => "float", visit_f64(0.5);
        deserialize_f64 => "float", visit_f64(0.5);
        deserialize_char => "string", visit_char('x');
        deserialize_str => "string", visit_str("x");
        deserialize_string => "string", visit_str("x");
        deserialize_bytes => "string", visit_bytes(b"x");
        deserialize_byte_buf => "string", visit_bytes(b"x");
        deserialize_identifier => "string", visit_str("x");
    }

    /// The quantity wrappers (`Dur`, `Rate`, `Size`) read a number or a unit string.
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
        self.record("number or string", "", &[]);
        v.visit_f64(1.0)
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
        v.visit_some(self)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
        v.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, WalkError> {
        v.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, WalkError> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
        self.record("list", "", &[]);
        let item = self.child("[]");
        v.visit_seq(Items {
            item: item.walk(),
            left: 1,
        })
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, WalkError> {
        self.record("list", "", &[]);
        let item = self.child("[]");
        v.visit_seq(Items {
            item: item.walk(),
            left: len,
        })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        v: V,
    ) -> Result<V::Value, WalkError> {
        self.deserialize_tuple(len, v)
    }
    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
        self.record("table", "", &[]);
        v.visit_map(de::value::MapDeserializer::new(std::iter::empty::<(
            &str,
            &str,
        )>()))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, WalkError> {
        self.record("table", name, &[]);
        let path = |f: &str| self.child(f).path;
        let mut fields: Vec<&'static str> = fields
            .iter()
            .copied()
            .filter(|f| !self.skip.iter().any(|s| s.0 == path(f)))
            .collect();
        fields.sort_by_key(|f| !self.first.contains(&path(f))); // stable: primaries first
        v.visit_map(Fields {
            walk: self,
            fields,
            next: 0,
        })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, WalkError> {
        self.record("enum", name, variants);
        v.visit_enum(FirstVariant(variants[0]))
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, WalkError> {
        v.visit_unit()
    }
}

/// A table's fields, each with a recording walk as its value.
struct Fields<'a> {
    walk: Walk<'a>,
    fields: Vec<&'static str>,
    next: usize,
}

impl<'de, 'a> MapAccess<'de> for Fields<'a> {
    type Error = WalkError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, WalkError> {
        let Some(f) = self.fields.get(self.next) else {
            return Ok(None);
        };
        *self.walk.last.borrow_mut() = self.walk.child(f).path;
        let key: de::value::StrDeserializer<'_, WalkError> = f.into_deserializer();
        seed.deserialize(key).map(Some)
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, WalkError> {
        let f = self.fields[self.next];
        self.next += 1;
        let child = self.walk.child(f);
        seed.deserialize(child.walk())
    }
}

/// An array's elements: `left` of them, all walked at the same `[]` path.
struct Items<'a> {
    item: Walk<'a>,
    left: usize,
}

impl<'de, 'a> SeqAccess<'de> for Items<'a> {
    type Error = WalkError;
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, WalkError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(self.item).map(Some)
    }
}

/// An enum read as its first (unit) variant.
struct FirstVariant(&'static str);

impl<'de> EnumAccess<'de> for FirstVariant {
    type Error = WalkError;
    type Variant = Self;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), WalkError> {
        let name: de::value::StrDeserializer<'_, WalkError> = self.0.into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> VariantAccess<'de> for FirstVariant {
    type Error = WalkError;
    fn unit_variant(self) -> Result<(), WalkError> {
        Ok(())
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, WalkError> {
        Err(WalkError(
            "schema walk: newtype variants are not in the schema".into(),
        ))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, WalkError> {
        Err(WalkError(
            "schema walk: tuple variants are not in the schema".into(),
        ))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, WalkError> {
        Err(WalkError(
            "schema walk: struct variants are not in the schema".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_finds_nested_keys_enums_and_quantities() {
        let keys = scenario_keys();
        let get = |p: &str| {
            keys.iter()
                .find(|k| k.path == p)
                .unwrap_or_else(|| panic!("{p}"))
        };
        assert_eq!(get("sim.duration").kind, "number or string");
        assert_eq!(get("sim.seed").kind, "integer");
        assert_eq!(get("flows").rust_type, "");
        assert_eq!(get("flows[]").rust_type, "FlowSpec");
        assert_eq!(get("flows[].type").kind, "enum");
        assert!(get("flows[].variant").values.contains(&"sack".to_string()));
        assert_eq!(get("obs.assembly.type").values[0], "timer");
        assert_eq!(get("flows[].drop_segments[][]").kind, "integer");
        assert!(get("nodes").aliases.contains(&"node".to_string()));
        // A key that does not exist is not invented.
        assert!(!keys.iter().any(|k| k.path == "flows[].nonsense"));
    }

    #[test]
    fn tcp_defaults_are_the_profiles() {
        let ns2 = tcp_defaults("ns2").unwrap();
        let get = |k| ns2.iter().find(|x| x.0 == k).unwrap().1.clone();
        assert_eq!(get("min_rto"), "0.2 s");
        assert_eq!(get("mss"), "1000 B");
        assert!(tcp_defaults("bogus").is_none());
    }
}
