//! Scenario builders shared by the integration tests.

// Each test crate compiles this module and uses only some of its builders.
#![allow(dead_code)]

use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::world::World;

/// The world of scenario `text` (TOML), built and not yet run.
pub fn world(text: &str) -> World {
    let r = ScenarioSpec::from_toml_str(text)
        .unwrap()
        .resolve(None, None)
        .unwrap();
    World::new(&r).unwrap()
}

/// A packet dumbbell: `n` TCP senders on 100 Mb/s, 1 ms access links share an
/// `n` × 50 Mb/s, 5 ms bottleneck with a drop-tail queue of `queue_pkts`, each with its
/// own receiver behind a 100 Mb/s, 1 ms link. Flow `i` runs `variants[i % len]` with
/// window `wm` from `i` ms. `sim` is the body of the `[sim]` table.
pub fn dumbbell(n: usize, sim: &str, queue_pkts: u32, wm: u32, variants: &[&str]) -> String {
    let mut s = format!(
        "[sim]\n{sim}\n\
         [[node]]\nname = \"R1\"\n[[node]]\nname = \"R2\"\n\
         [[link]]\na = \"R1\"\nb = \"R2\"\nrate = \"{}Mb/s\"\ndelay = \"5ms\"\nqueue_pkts = {queue_pkts}\n",
        n * 50
    );
    for i in 0..n {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\na = \"s{i}\"\nb = \"R1\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n\
             [[link]]\na = \"R2\"\nb = \"d{i}\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n\
             [[flow]]\ntype = \"tcp\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nvariant = \"{}\"\n\
             wm = {wm}\nstart = \"{i}ms\"\n",
            variants[i % variants.len()],
        );
    }
    s
}

/// `s –(1 Gb/s, 1 ms)– E1 –f– C1 … Cn –f– E2 –(1 Gb/s, 1 ms)– d`, fibres 10 Gb/s, 1 ms,
/// `k` wavelengths each, bursts traced; `obs` is the body of the `[obs]` table and
/// `flows` the `[[flow]]` tables.
pub fn obs_chain(cores: usize, k: u32, obs: &str, flows: &str, duration: &str) -> String {
    let mut s = format!("[sim]\nduration = \"{duration}\"\ntrace = {{ bursts = true }}\n");
    let mut path = vec!["E1".to_string()];
    path.extend((1..=cores).map(|i| format!("C{i}")));
    path.push("E2".into());
    s += "[[node]]\nname = \"s\"\nkind = \"host\"\n[[node]]\nname = \"d\"\nkind = \"host\"\n";
    for (i, n) in path.iter().enumerate() {
        let kind = if i == 0 || i + 1 == path.len() {
            "edge"
        } else {
            "core"
        };
        s += &format!("[[node]]\nname = \"{n}\"\nkind = \"{kind}\"\n");
    }
    s += "[[link]]\na = \"s\"\nb = \"E1\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    s += "[[link]]\na = \"E2\"\nb = \"d\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    for w in path.windows(2) {
        s += &format!(
            "[[fibre]]\na = \"{}\"\nb = \"{}\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = {k}\n",
            w[0], w[1]
        );
    }
    s += "[obs]\n";
    s += obs;
    s += "\n";
    s += flows;
    s
}
