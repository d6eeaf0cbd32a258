//! What rebuilding the motions reports: per motion file, what became of each motion (unchanged,
//! edited with the tracks encoded again, deleted, carried, left unexported, new), and the
//! animations not written with their reasons; as data for `--json` and as text lines.

use serde::Serialize;

use crate::rig::motion::{Property, Reencoded};

/// What became of one motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MotionStatus {
    /// Every track kept its bytes.
    Unchanged,
    /// Some tracks were encoded again (listed).
    Edited,
    /// The animation is gone: the motion was taken out.
    Deleted,
    /// It had no animation (it could not go on the model): kept as it was.
    Carried,
    /// Its animation was left out of the glTF because it had not changed since the export
    /// (the Blender add-on fingerprints each action; the file's record lists it under
    /// `unexported`): kept as it was.
    Unexported,
    /// An animation that came from no motion file, encoded as a new motion.
    New,
}

/// One motion's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionReport {
    /// Animation name.
    pub animation: String,
    /// Archive slots (empty for a lone motion file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<usize>,
    /// Outcome.
    pub status: MotionStatus,
    /// Tracks encoded again: joint, channel, keys written, worst quantisation error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reencoded: Vec<Reencoded>,
    /// A new motion: the motion its header's undecoded fields come from, and what they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// A new motion: per joint it moves, how far the written motion plays from the glTF's
    /// samples.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<JointError>,
}

impl MotionReport {
    /// The report of a motion as read, before it is compared.
    pub(in crate::gltf::import) fn of(
        animation: &str,
        slots: &[usize],
        status: MotionStatus,
    ) -> MotionReport {
        MotionReport {
            animation: animation.to_string(),
            slots: slots.to_vec(),
            status,
            reencoded: Vec::new(),
            template: None,
            errors: Vec::new(),
        }
    }
}

/// How far a new motion, as written, plays from its animation's samples for one joint: the
/// largest rotation angle and translation distance at the samples' times.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct JointError {
    /// Joint index.
    pub joint: usize,
    /// Largest rotation difference, radians.
    pub rotation_rad: f64,
    /// Largest translation difference, metres.
    pub translation_m: f64,
}

/// A glTF animation the import does not write, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotWritten {
    /// Animation index in the glTF.
    pub animation: usize,
    /// Its name (`None`: it has none).
    pub name: Option<String>,
    /// Why it is not written.
    pub reason: String,
}

impl std::fmt::Display for NotWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            Some(n) => write!(
                f,
                "animation {} ({n}): not written: {}",
                self.animation, self.reason
            ),
            None => write!(
                f,
                "animation {}: not written: {}",
                self.animation, self.reason
            ),
        }
    }
}

/// One motion file rebuilt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionFileReport {
    /// The file's name, as it was exported.
    pub file: String,
    /// Bytes written (`None`: its only motion was deleted, nothing to write).
    pub bytes: Option<usize>,
    /// Per motion.
    pub motions: Vec<MotionReport>,
    /// The largest deviation accepted as noise, as a fraction of its tolerance.
    pub closest: f64,
}

impl MotionFileReport {
    /// The report as text lines handed to `line`; `scale` (metres per native unit) says
    /// translation errors in mm.
    pub fn render_text(&self, scale: f64, line: &mut impl FnMut(String)) {
        use crate::units;
        let error = |r: &Reencoded| match r.channel.property {
            Property::Translation => units::length(r.error * scale),
            Property::Rotation => units::degrees(r.error),
            Property::Scale => units::value(r.error),
        };
        let count = |s: MotionStatus| self.motions.iter().filter(|m| m.status == s).count();
        let new = match count(MotionStatus::New) {
            0 => String::new(),
            n => format!(", {n} new"),
        };
        let written = match self.bytes {
            Some(n) => format!("{n} bytes"),
            None => "not written: its only motion was deleted".into(),
        };
        let carried = match count(MotionStatus::Carried) {
            0 => String::new(),
            n => format!(", {n} carried"),
        };
        let unexported = match count(MotionStatus::Unexported) {
            0 => String::new(),
            n => format!(", {n} not exported (unchanged in Blender)"),
        };
        line(format!(
            "motion file {} ({written}): {} unchanged, {} edited, {} deleted{carried}{unexported}{new} (noise up to {:.0}% of the tolerance)",
            self.file,
            count(MotionStatus::Unchanged),
            count(MotionStatus::Edited),
            count(MotionStatus::Deleted),
            100.0 * self.closest
        ));
        for m in &self.motions {
            let slots = if m.slots.is_empty() {
                String::new()
            } else {
                format!(
                    " (slot {})",
                    m.slots
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            match m.status {
                MotionStatus::Unchanged | MotionStatus::Unexported => {}
                MotionStatus::Carried => line(format!(
                    "  {}{slots}: carried as it was (it had no animation: it does not fit the model)",
                    m.animation
                )),
                MotionStatus::Deleted => line(format!(
                    "  {}{slots}: deleted, {}",
                    m.animation,
                    if m.slots.is_empty() {
                        "nothing to write"
                    } else {
                        "its slot is left empty"
                    }
                )),
                MotionStatus::New => render_new(m, &slots, line),
                MotionStatus::Edited => {
                    let keys: usize = m.reencoded.iter().map(|r| r.keys).sum();
                    // The worst per property: their units differ.
                    let worst: Vec<String> =
                        [Property::Translation, Property::Rotation, Property::Scale]
                            .into_iter()
                            .filter_map(|p| {
                                m.reencoded
                                    .iter()
                                    .filter(|r| r.channel.property == p)
                                    .max_by(|a, b| a.error.total_cmp(&b.error))
                                    .map(|r| format!("{} {}", r.channel.name(), error(r)))
                            })
                            .collect();
                    line(format!(
                        "  {}{slots}: {} track(s) encoded again, {keys} keys written, worst quantisation error: {}",
                        m.animation,
                        m.reencoded.len(),
                        worst.join(", ")
                    ));
                    for r in &m.reencoded {
                        line(format!(
                            "    joint {} {}: {} keys, quantisation error {}",
                            r.joint,
                            r.channel.name(),
                            r.keys,
                            error(r)
                        ));
                    }
                }
            }
        }
    }
}

/// The lines of a new motion: where it went, its template, and its encoding error per joint.
fn render_new(m: &MotionReport, slots: &str, line: &mut impl FnMut(String)) {
    use crate::units;
    let keys: usize = m.reencoded.iter().map(|r| r.keys).sum();
    let worst = |f: fn(&JointError) -> f64| m.errors.iter().map(f).fold(0.0f64, f64::max);
    line(format!(
        "  {}{slots}: new motion, {} track(s), {keys} keys; plays within {} and {} of the glTF's samples",
        m.animation,
        m.reencoded.len(),
        units::degrees(worst(|e| e.rotation_rad)),
        units::length(worst(|e| e.translation_m)),
    ));
    if let Some(t) = &m.template {
        line(format!("    header: {t}"));
    }
    for e in &m.errors {
        line(format!(
            "    joint {}: within {}, {}",
            e.joint,
            units::degrees(e.rotation_rad),
            units::length(e.translation_m)
        ));
    }
}
