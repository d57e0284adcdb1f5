//! Scenario builders shared by the integration tests.

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
