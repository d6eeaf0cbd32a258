//! `verify`'s layout leg: a MOD/SCM's decoded parts laid out anew by the game's retail rules
//! ([`crate::native::dmc3::layout::laid_out_anew`], the one function the writer uses too) and
//! compared with the file; an archive's MOD/SCM members each the same way. A file that is not in
//! the retail layout (a synthetic one, odd gaps, a file written by another tool) is reported with
//! the first difference and the structure that holds it: information about the file, which still
//! verifies `identical` when its round trips do. An archive member may end in zero padding up to
//! the next member: that is the archive's, not the model's.

use crate::bytes::Claim;
use crate::native::dmc3::layout::laid_out_anew;
use crate::native::dmc3::pac::{MemberKind, Pac};
use crate::native::dmc3::{self, Dmc3File};
use crate::native::{Format, MotionFile};

pub use super::verdict::{LayoutDifference, LayoutLeg, MemberLayout};

/// The layout leg of `data` read as `format` (detected when `None`); `Err` when a file that was
/// read cannot be laid out anew (a rigtrip bug: the writer refuses what the reader accepted).
pub fn layout_leg(format: Option<Format>, data: &[u8]) -> Result<LayoutLeg, String> {
    match format {
        Some(Format::Dmc3) | None if dmc3::has_container_magic(data) => {
            let file = dmc3::read_container(data).map_err(|e| crate::chain(&e))?;
            container_leg(&file, data, false)
        }
        Some(Format::Block { .. }) => Ok(not_applicable(
            "a node-domain block inside another file has no MOD/SCM layout",
        )),
        None => match MotionFile::detect_read(data) {
            Some(Ok(MotionFile::Pac(p))) => archive_leg(&p),
            Some(Ok(m)) => Ok(not_applicable(&format!(
                "a {} file has no MOD/SCM layout",
                m.kind()
            ))),
            Some(Err(e)) => Err(crate::chain(&e)),
            None => Ok(not_applicable("not a MOD/SCM file")),
        },
        Some(Format::Hie) => Ok(not_applicable("a hie file has no MOD/SCM layout")),
        Some(Format::Dmc3) => Ok(not_applicable("not a MOD/SCM file")),
    }
}

fn not_applicable(why: &str) -> LayoutLeg {
    LayoutLeg::NotApplicable(why.to_string())
}

/// A MOD/SCM (`file`, read from `data`) laid out anew and compared with `data`. An archive
/// `member`'s bytes run to the next member: zero bytes after its last structure are the
/// archive's padding between members, not the model's.
fn container_leg(file: &Dmc3File, data: &[u8], member: bool) -> Result<LayoutLeg, String> {
    let Some((anew, _)) = laid_out_anew(file).map_err(|e| crate::chain(&e))? else {
        return Ok(not_applicable("no MOD/SCM container"));
    };
    let padded = member
        && data.len() > anew.len()
        && data.starts_with(&anew)
        && data[anew.len()..].iter().all(|&b| b == 0);
    if anew == data || padded {
        return Ok(LayoutLeg::Identical);
    }
    let first = data
        .iter()
        .zip(&anew)
        .position(|(a, b)| a != b)
        .unwrap_or(data.len().min(anew.len())) as u64;
    Ok(LayoutLeg::NotRetail(LayoutDifference {
        first,
        structure: structure_at(file, first),
        original: data.len() as u64,
        retail: anew.len() as u64,
    }))
}

/// Every MOD/SCM member of an archive (nested archives' members included, in member order) on
/// the layout leg; not applicable when it holds none.
fn archive_leg(p: &Pac) -> Result<LayoutLeg, String> {
    let mut members = Vec::new();
    collect_members(p, &mut members)?;
    if members.is_empty() {
        return Ok(not_applicable("an archive without a MOD/SCM member"));
    }
    Ok(LayoutLeg::Members(members))
}

fn collect_members(p: &Pac, out: &mut Vec<MemberLayout>) -> Result<(), String> {
    for m in &p.members {
        match &m.kind {
            MemberKind::Model(f) => {
                let bytes = m.bytes().map_err(|e| crate::chain(&e))?;
                out.push(MemberLayout {
                    offset: m.offset,
                    slots: m.slots.clone(),
                    format: f.kind(),
                    layout: container_leg(f, &bytes, true)?,
                });
            }
            MemberKind::Archive(inner) => collect_members(inner, out)?,
            _ => {}
        }
    }
    Ok(())
}

/// The structure of `file` that holds byte `at`, and `at`'s place in it.
fn structure_at(file: &Dmc3File, at: u64) -> String {
    let mut claims = file.claims_without_block().unwrap_or_default();
    if let Some(b) = &file.block {
        claims.push(Claim {
            start: b.offset,
            end: b.offset.saturating_add(b.extent()),
            label: format!("node-domain block at {:#x}", b.offset),
        });
    }
    match claims.iter().find(|c| c.start <= at && at < c.end) {
        Some(c) => format!("{} +{:#x}", c.label, at - c.start),
        None => "past the end of the file".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::dmc3::{random_mod, real_layout};

    #[test]
    fn a_real_layout_is_identical_and_a_shuffled_one_is_not() {
        for seed in 0..20 {
            for scm in [false, true] {
                let leg = layout_leg(None, &real_layout(seed, scm)).unwrap();
                assert_eq!(leg, LayoutLeg::Identical, "seed {seed}");
            }
        }
        let not = (0..50)
            .filter_map(|seed| layout_leg(None, &random_mod(seed)).ok())
            .filter(|l| matches!(l, LayoutLeg::NotRetail(_)))
            .count();
        assert!(not > 30, "{not}");
    }
}
