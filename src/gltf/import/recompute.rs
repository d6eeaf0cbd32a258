//! Native recomputation: which native fields lowering recomputed (from the lowered file, by
//! the format), and which joints end up with nothing to report.

use super::edits::Built;
use super::JointReport;
use crate::native::NativeFile;
use crate::rig::format::RigFormat;

/// Fills in the recomputed fields and rewritten arrays from the lowered `native` file (and the
/// format's notes on the file as a whole), then leaves in each skeleton report only the joints
/// with something to say (counting the others).
pub(crate) fn recomputed_fields(built: &mut Built, native: &NativeFile, format: &dyn RigFormat) {
    let notes = format.layout_notes(&built.rig, native);
    built.notes.extend(notes);
    let recomputed = format.recomputed(&built.rig, native, &built.written);
    for (report, r) in built.reports.iter_mut().zip(recomputed) {
        for (j, fields) in report.joints.iter_mut().zip(r.joints) {
            j.recomputed.extend(fields);
        }
        report.rewritten.extend(r.rewritten);
    }
    let quiet = |j: &JointReport| {
        j.changes.is_empty()
            && j.recomputed.is_empty()
            && j.defaults.is_empty()
            && j.rounding.is_none()
    };
    for r in &mut built.reports {
        let before = r.joints.len();
        r.joints.retain(|j| !quiet(j));
        r.unchanged = before - r.joints.len();
    }
}
