//! What the import says when lowering laid a MOD/SCM out again ([`crate::native::dmc3::layout`]):
//! that the file now follows the game's retail layout, where its index workspaces are, and which
//! bytes it carried that the layout has no place for.

use super::{Rig, Source};
use crate::native::dmc3::workspace::workspace_len;
use crate::native::dmc3::{Container, MESH_LEN};
use crate::native::NativeFile;

/// The notes on the lowered `native` file of `rig`: none when nothing was laid out again (every
/// mesh record and workspace where the rig's file had it).
pub(crate) fn layout_notes(rig: &Rig, native: &NativeFile) -> Vec<String> {
    let (Source::Dmc3(shell), NativeFile::Dmc3(f)) = (&rig.source, native) else {
        return Vec::new();
    };
    let (Some(before), Some(after)) = (&shell.file.container, &f.container) else {
        return Vec::new();
    };
    if !moved(before, after) {
        return Vec::new();
    }
    let placed: Vec<(u64, u64)> = after
        .objects
        .iter()
        .flat_map(|o| {
            o.meshes.iter().zip(0u64..).map(move |(m, j)| {
                let record = o.record.mesh_offset.saturating_add(j * MESH_LEN);
                let start = record.saturating_add(m.record.workspace_offset);
                (start, workspace_len(m.vertex_count()))
            })
        })
        .collect();
    let start = placed.first().map_or(0, |p| p.0);
    let bytes: u64 = placed.iter().map(|p| p.1).sum();
    let mut notes = vec![format!(
        "laid out again in the game's retail layout (each object's streams grouped by kind, the \
         block, then the index workspaces): {} mesh(es) with their workspace, {bytes} bytes from \
         {start:#x}, each mesh's +0x40 pointing at its own",
        placed.len()
    )];
    let carried: usize = f
        .gaps
        .iter()
        .filter(|g| g.bytes.iter().any(|&b| b != 0))
        .map(|g| g.bytes.len())
        .sum();
    if carried > 0 {
        notes.push(format!(
            "{carried} byte(s) the retail layout has no place for were carried, after the last \
             stream"
        ));
    }
    notes
}

/// Whether an object's mesh records or a mesh's workspace moved (or meshes came or went).
fn moved(before: &Container, after: &Container) -> bool {
    before.objects.len() != after.objects.len()
        || before.objects.iter().zip(&after.objects).any(|(a, b)| {
            a.record.mesh_offset != b.record.mesh_offset
                || a.meshes.len() != b.meshes.len()
                || a.meshes
                    .iter()
                    .zip(&b.meshes)
                    .any(|(x, y)| x.record.workspace_offset != y.record.workspace_offset)
        })
}
