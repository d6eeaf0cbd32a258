//! Documents written before the container records named their fields (rigtrip 0.2.0: header
//! `unknown_13`, mesh `unknown_40`, a 28-byte object `unknown_14`, ...; no `workspace` key)
//! import as before: the same bytes. The old form is made here, by this test's own inverse of
//! the renames (`docs/formats.md` lists the fields), from a document exported today.

use serde_json::{json, Map, Value};

use rigtrip::gltf::import::{import_slice, ImportOptions};
use rigtrip::gltf::{export, to_gltf, ExportOptions};
use rigtrip::native::dmc3::{read_container, workspace::workspace_len, Workspace};
use rigtrip::native::NativeFile;
use rigtrip::rig;

/// `0x`-hex `v` as `n` little-endian bytes, plain hex.
fn le_hex(v: &Value, n: usize) -> String {
    let x = u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    x.to_le_bytes()[..n]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Removes `keys` from `m` and gives their values.
fn take(m: &mut Map<String, Value>, keys: &[&str]) -> Vec<Value> {
    keys.iter().map(|k| m.remove(*k).unwrap()).collect()
}

/// The container of a file's JSON in the form 0.2.0 wrote.
fn to_old_form(file: &mut Value) {
    let c = &mut file["container"];
    let h = c["header"].as_object_mut().unwrap();
    let [joint, code] =
        <[Value; 2]>::try_from(take(h, &["default_joint", "resource_code"])).unwrap();
    h.insert("unknown_13".into(), joint);
    h.insert("unknown_14".into(), code);
    for o in c["objects"].as_array_mut().unwrap() {
        let r = o["record"].as_object_mut().unwrap();
        let v = take(
            r,
            &[
                "alpha_control",
                "unknown_14",
                "render_18",
                "render_1c",
                "unknown_20",
            ],
        );
        r.insert("unknown_01".into(), v[0].clone());
        let bytes = format!(
            "{}{}{}{}",
            le_hex(&v[1], 4),
            le_hex(&v[2], 4),
            le_hex(&v[3], 4),
            v[4].as_str().unwrap()
        );
        r.insert("unknown_14".into(), json!(bytes));
        for m in o["meshes"].as_array_mut().unwrap() {
            m.as_object_mut().unwrap().remove("workspace");
            mesh_to_old_form(m["record"].as_object_mut().unwrap());
        }
    }
}

fn mesh_to_old_form(r: &mut Map<String, Value>) {
    let keys = [
        "clamp_min_u",
        "clamp_max_u",
        "clamp_min_v",
        "clamp_max_v",
        "unknown_0c",
    ];
    let v = take(r, &keys);
    let clamp: String = v[..4]
        .iter()
        .map(|x| le_hex(&json!(format!("{:#x}", x.as_u64().unwrap())), 2))
        .collect();
    r.insert("unknown_04".into(), json!(clamp + &le_hex(&v[4], 4)));
    let ws = r.remove("workspace_offset").unwrap();
    r.insert("unknown_40".into(), ws);
    let v = take(r, &["index_count", "unknown_4c"]);
    r.insert(
        "unknown_48".into(),
        json!(le_hex(&v[0], 4) + &le_hex(&v[1], 4)),
    );
    let variant = r["variant"].as_object_mut().unwrap();
    if let Some(m) = variant.get_mut("Mod").and_then(Value::as_object_mut) {
        let a = m.remove("auxiliary_offset").unwrap();
        m.insert("unknown_38".into(), json!(le_hex(&a, 8)));
    }
    if let Some(s) = variant.get_mut("Scm").and_then(Value::as_object_mut) {
        let v = take(s, &["continuation", "unknown_30"]);
        s.insert(
            "unknown_28".into(),
            json!(le_hex(&v[0], 8) + &le_hex(&v[1], 8)),
        );
    }
}

#[test]
fn a_document_from_before_the_named_fields_imports_the_same_bytes() {
    let (mut checked, mut meshes) = (0, 0);
    for seed in 0..80u64 {
        let data = rigtrip::synth::dmc3::random_exportable(seed, seed % 2 == 1);
        let f = read_container(&data).unwrap();
        // A document of that time read no workspace: its bytes were gaps. Files whose meshes
        // have none (as most generated files of another layout) are described the same then
        // and now but for the keys.
        let has_workspace = f
            .container
            .iter()
            .flat_map(|c| &c.objects)
            .flat_map(|o| &o.meshes)
            .any(|m| m.workspace != Workspace::Absent && workspace_len(m.vertex_count()) > 0);
        if has_workspace {
            continue;
        }
        let rig = rig::lift(NativeFile::read(None, &data).unwrap());
        let e = export(&rig, &ExportOptions::default()).unwrap();
        let mut v: Value = serde_json::from_slice(&to_gltf(&e).unwrap()).unwrap();
        let file = &mut v["scenes"][0]["extras"]["rigtrip"]["source"]["file"];
        to_old_form(file);
        let text = serde_json::to_vec(&v).unwrap();
        assert!(String::from_utf8_lossy(&text).contains("\"unknown_13\""));
        let got = import_slice(&text, None, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {}", rigtrip::chain(&e)));
        assert_eq!(got.bytes, data, "seed {seed}");
        checked += 1;
        meshes += usize::from(String::from_utf8_lossy(&text).contains("\"unknown_40\""));
    }
    assert!(checked > 30 && meshes > 20, "{checked} {meshes}");
}
