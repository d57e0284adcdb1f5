//! `type = "python"` assemblies (src/obs/external.rs) in the core alone: valid
//! scenarios, refused when the world is built without a factory (the `burstlab`
//! binary), naming the assembly's `type` field. The Python side is tested in
//! tests/test_python_hooks.py.

use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::world::World;

#[test]
fn the_core_alone_refuses_a_python_assembly() {
    let text = include_str!("../../../examples/python_timer.toml");
    let r = ScenarioSpec::from_toml_str(text)
        .unwrap()
        .resolve(None, None)
        .unwrap();
    let e = World::new(&r).err().expect("refused");
    assert_eq!(e.field, "obs.assembly.type");
    assert!(e.reason.contains("only from the Python package"), "{e}");
}

#[test]
fn a_python_assembly_needs_a_module_and_a_class() {
    let text = include_str!("../../../examples/python_timer.toml");
    for (object, why) in [
        ("object = \"python_timer\"", "must be \"module:Class\""),
        ("object = \":Assembler\"", "must be \"module:Class\""),
    ] {
        let t = text.replace("object = \"python_timer:Assembler\"", object);
        let e = ScenarioSpec::from_toml_str(&t)
            .unwrap()
            .resolve(None, None)
            .expect_err("refused");
        assert_eq!(e.field, "obs.assembly.object");
        assert!(e.reason.contains(why), "{e}");
    }
}
