//! New motions: a glTF animation that came from no motion file is encoded as a motion of the
//! model (the format's channel masks and key tracks, its header's undecoded fields from a
//! motion of the same model the glTF carries) and written where its name or the caller says:
//!
//! - `<archive stem>_<slot>` (`pl000_00_3_07`): that slot of that archive, which grows when the
//!   slot is past its table; a slot that holds something is refused by name;
//! - else into the first free slot of the archive the caller names (`--new-motions-into`);
//! - else as `<name>.mot`, a motion file of its own.
//!
//! Every other animation that is not written (no name, a second of a name, one that animates
//! no joint, one named like a carried motion, no motion of the model to copy a header from) is
//! named with the reason. Tracks are linear keys at the samples' whole frames, less those the
//! line through their neighbours plays within a tenth of the tolerance. The report gives each
//! new motion's template and, per joint it moves, how far the written motion (quantised, as the
//! game plays it) is from the glTF's samples at every frame.

use std::collections::BTreeMap;

use glam::{DQuat, DVec3};

use super::motions::{
    compare, keys, plain_name, played, Compared, Incoming, JointError, MotionCx, MotionReport,
    MotionStatus, NotWritten, Rebuilt, Seen,
};
use super::ImportError;
use crate::gltf::read::player::Blend;
use crate::rig::motion::{
    euler_rotation, Interpolation, Motion, MotionFile, Property, SlotUse, Slotted, MAX_FRAME,
};

/// Where a new motion goes.
enum Dest {
    /// Slot `1` of the archive `files[0]`.
    Slot(usize, usize),
    /// A motion file of its own, under this name.
    Lone(String),
}

/// Writes each animation of `seen` that came from no motion file as a new motion into `files`
/// (a slot of an archive among them, or a new file); returns those not written, with the
/// reason. `into`: the file name of the archive for new motions whose name gives none.
pub(super) fn place(
    cx: &MotionCx,
    seen: &[Seen],
    files: &mut Vec<Compared>,
    into: Option<&str>,
) -> Result<Vec<NotWritten>, ImportError> {
    let into = into.map(|n| archive_named(files, n)).transpose()?;
    let mut not_written = Vec::new();
    for s in seen {
        let refuse = |reason: String| NotWritten {
            animation: s.index,
            name: s.name.map(str::to_string),
            reason,
        };
        let name = match skipped(s, files) {
            Skip::Consumed => continue,
            Skip::Not(reason) => {
                not_written.push(refuse(reason));
                continue;
            }
            Skip::New(name) => name,
        };
        let Some(incoming) = cx.animations.get(name) else {
            continue;
        };
        let dest = match destination(name, files, into)? {
            Ok(d) => d,
            Err(reason) => {
                not_written.push(refuse(reason));
                continue;
            }
        };
        let near = match &dest {
            Dest::Slot(f, _) => Some(*f),
            Dest::Lone(_) => None,
        };
        let Some((template, from)) = template(files, near, cx.rest.len()) else {
            not_written.push(refuse(format!(
                "the glTF carries no motion of this model ({} joints) to take a motion header \
                 from; export the model with --motions to write new ones",
                cx.rest.len()
            )));
            continue;
        };
        let (motion, report) = encode(cx, name, incoming, &template, &from)?;
        put(files, dest, motion, report);
    }
    Ok(not_written)
}

/// What the motions of `onto`'s template file are named, so that no animation is taken for
/// one of them (a NUL: no name a person gives).
const ONTO_TEMPLATE: &str = "\0template";

/// New motions alone (`import --onto`): each animation of `seen` written as a new motion on the
/// header of a motion of `template` (`(file name, file)`, a motion file of the template's
/// model): into a slot of that archive when its name or `into` says so, else as a file of its
/// own. The template file is written only when a new motion went into it, and its report lists
/// the new ones alone.
pub(super) fn onto(
    cx: &MotionCx,
    seen: &[Seen],
    template: (String, MotionFile),
    into: Option<&str>,
) -> Result<Rebuilt, ImportError> {
    let (file, mf) = template;
    let reports = mf
        .motions
        .iter()
        .map(|s| MotionReport::of(ONTO_TEMPLATE, &s.slots, MotionStatus::Unchanged))
        .collect();
    let mut files = vec![Compared {
        file,
        mf,
        reports,
        closest: 0.0,
    }];
    let not_written = place(cx, seen, &mut files, into)?;
    let mut out = Vec::new();
    for (i, c) in files.into_iter().enumerate() {
        if i == 0 && !c.reports.iter().any(|r| r.status == MotionStatus::New) {
            continue;
        }
        let mut w = c.write()?;
        w.report.motions.retain(|r| r.status == MotionStatus::New);
        out.push(w);
    }
    Ok((out, not_written))
}

/// Why an animation is not a new motion, or its name when it is one.
enum Skip<'a> {
    /// It is a motion file's animation.
    Consumed,
    /// It is not written, for this reason.
    Not(String),
    /// It is new, with this name.
    New(&'a str),
}

/// What becomes of animation `s` given the motion files read.
fn skipped<'a>(s: &Seen<'a>, files: &[Compared]) -> Skip<'a> {
    let Some(name) = s.name else {
        return Skip::Not(
            "it has no name (a new motion is written under its animation's name)".into(),
        );
    };
    if s.duplicate {
        return Skip::Not(format!(
            "an earlier animation is named {name} too; only the first of a name is read"
        ));
    }
    let owner = files
        .iter()
        .flat_map(|f| f.reports.iter().map(move |r| (f, r)))
        .find(|(_, r)| r.animation == name);
    match owner {
        Some((f, r)) if r.status == MotionStatus::Carried => Skip::Not(format!(
            "{name} is the name of a motion of {} carried as it was (it does not fit the \
             model); rename the animation to write it as a new motion",
            f.file
        )),
        Some(_) => Skip::Consumed,
        None if s.joints == 0 => Skip::Not("it animates no joint of the rig".into()),
        None => Skip::New(name),
    }
}

/// The index of the archive among `files` whose file name is the file name of `path`.
fn archive_named(files: &[Compared], path: &str) -> Result<usize, ImportError> {
    let want = path.rsplit(['/', '\\']).next().unwrap_or(path);
    files
        .iter()
        .position(|f| f.mf.is_archive() && f.file.eq_ignore_ascii_case(want))
        .ok_or_else(|| ImportError::NewMotionsInto {
            file: want.to_string(),
            archives: files
                .iter()
                .filter(|f| f.mf.is_archive())
                .map(|f| f.file.clone())
                .collect(),
        })
}

/// Where the new motion `name` goes (see the module): `Err` with the reason it cannot go
/// anywhere, or an error when the slot its name gives is taken.
fn destination(
    name: &str,
    files: &[Compared],
    into: Option<usize>,
) -> Result<Result<Dest, String>, ImportError> {
    if let Some((f, slot)) = named_slot(name, files) {
        let taken = |what: String| ImportError::NewMotion {
            animation: name.to_string(),
            problem: format!(
                "its name gives slot {slot} of {}, which {what}",
                files[f].file
            ),
        };
        return match files[f].mf.slot_use(slot) {
            SlotUse::Free if slot < MotionFile::MAX_SLOTS => Ok(Ok(Dest::Slot(f, slot))),
            SlotUse::Free | SlotUse::NotAnArchive => Err(taken(format!(
                "is past the {} slots an archive may grow to",
                MotionFile::MAX_SLOTS
            ))),
            SlotUse::Motion(i) => Err(taken(format!(
                "holds the motion of animation {} (rename the new one, or delete that one)",
                files[f]
                    .reports
                    .get(i)
                    .map_or("?", |r| r.animation.as_str())
            ))),
            SlotUse::Other(kind) => Err(taken(format!(
                "holds a member that is not a motion ({kind})"
            ))),
        };
    }
    if let Some(f) = into {
        return Ok(match files[f].mf.first_free_slot() {
            Some(slot) => Ok(Dest::Slot(f, slot)),
            None => Err(format!("{} has no free slot left", files[f].file)),
        });
    }
    let file = format!("{name}.mot");
    if !plain_name(name) {
        return Ok(Err(format!(
            "its name is not a plain file name, so it cannot be written as {file}"
        )));
    }
    // Windows and macOS folders do not tell names apart by case.
    if files.iter().any(|f| f.file.eq_ignore_ascii_case(&file)) {
        return Ok(Err(format!(
            "{file} is the name of a motion file already written"
        )));
    }
    Ok(Ok(Dest::Lone(file)))
}

/// The archive among `files` and the slot an animation name `<archive stem>_<slot>` gives.
fn named_slot(name: &str, files: &[Compared]) -> Option<(usize, usize)> {
    let (stem, digits) = name.rsplit_once('_')?;
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let f = files.iter().position(|f| {
        f.mf.is_archive()
            && f.file
                .rsplit_once('.')
                .is_some_and(|(s, _)| s.eq_ignore_ascii_case(stem))
    })?;
    Some((f, digits.parse().ok()?))
}

/// A motion of this model (`joints` joints) to take a header from, and where it is: the first
/// of archive `near` when it has one, else the first of any file.
fn template(files: &[Compared], near: Option<usize>, joints: usize) -> Option<(Motion, String)> {
    let of = |f: &Compared| {
        f.mf.motions.iter().zip(&f.reports).find_map(|(s, r)| {
            let m = s.motion.as_ref().filter(|m| m.joints == joints)?;
            (r.status != MotionStatus::Carried && r.status != MotionStatus::New).then(|| {
                // The motions of `onto`'s template file go by no animation's name.
                let named = match r.animation.as_str() {
                    ONTO_TEMPLATE => String::new(),
                    a => format!(" ({a})"),
                };
                let at = match s.slots.first() {
                    Some(slot) => format!("{} slot {slot}{named}", f.file),
                    None => f.file.clone(),
                };
                (m.clone(), at)
            })
        })
    };
    near.and_then(|n| files.get(n).and_then(of))
        .or_else(|| files.iter().find_map(of))
}

/// Encodes animation `name` (its samples `incoming`) as a new motion on the shell of
/// `template` (found at `from`); returns it and its report. A frame past the format's last is
/// refused by joint and frame.
fn encode(
    cx: &MotionCx,
    name: &str,
    incoming: &BTreeMap<usize, Incoming>,
    template: &Motion,
    from: &str,
) -> Result<(Motion, MotionReport), ImportError> {
    let end = last_sample(name, incoming)?;
    let (mut motion, taken) = template.blank_like(end);
    compare(&mut motion, incoming, cx.rest, cx.space, cx.tol)?;
    // Keys at the samples played linearly, as a loader plays the glTF's (Hermite tangents
    // from neighbouring samples would overshoot between sparse keys); keys the line through
    // their neighbours plays within a tenth of the tolerance are dropped.
    for t in &mut motion.tracks {
        t.curve.set_interpolation(Interpolation::Linear);
        for k in &mut t.curve.keys {
            (k.tangent_in, k.tangent_out) = (0.0, 0.0);
        }
        let eps = match t.channel.property {
            Property::Translation => cx.tol.translation_m / cx.space.scale,
            Property::Rotation => cx.tol.rotation_rad,
            Property::Scale => cx.tol.scale,
        };
        t.curve.thin_linear(eps / 10.0);
    }
    let encoded = motion.encoded().map_err(|e| ImportError::NewMotion {
        animation: name.to_string(),
        problem: crate::chain(&e),
    })?;
    let report = MotionReport {
        animation: name.to_string(),
        slots: Vec::new(),
        status: MotionStatus::New,
        reencoded: Vec::new(),
        template: Some(format!("from {from}: {taken}; end frame {end}")),
        errors: errors(cx, incoming, &encoded, end),
    };
    Ok((motion, report))
}

/// The last sample's frame, whole (what the motion's end frame becomes); a sample past the
/// last frame a motion holds is refused by joint.
fn last_sample(name: &str, incoming: &BTreeMap<usize, Incoming>) -> Result<f64, ImportError> {
    let mut end = 0.0f64;
    for (&joint, inc) in incoming {
        let frames = [
            inc.translation.as_ref().map(|s| &s.0),
            inc.rotation.as_ref().map(|s| &s.0),
            inc.scale.as_ref().map(|s| &s.0),
        ];
        for &f in frames.into_iter().flatten().flatten() {
            if f.round() > MAX_FRAME {
                return Err(ImportError::NewMotion {
                    animation: name.to_string(),
                    problem: format!(
                        "joint {joint} has a sample at frame {f:.1}, past frame {MAX_FRAME}, the \
                         last a motion holds ({:.0} s at 60 frames per second)",
                        MAX_FRAME / 60.0
                    ),
                });
            }
            end = end.max(f.round());
        }
    }
    Ok(end)
}

/// Per joint the motion moves, the largest rotation and translation difference between what
/// `encoded` plays (as the game takes it) and what a loader plays from the samples (linear,
/// rotations blended), at every whole frame from 0 to `end`.
fn errors(
    cx: &MotionCx,
    incoming: &BTreeMap<usize, Incoming>,
    encoded: &Motion,
    end: f64,
) -> Vec<JointError> {
    let curves = encoded.by_joint();
    // Per joint that moves: its error so far and the loader's keyframes of its samples.
    let mut judged: Vec<_> =
        incoming
            .iter()
            .filter(|(&j, _)| j < cx.rest.len())
            .filter(|(&j, _)| {
                curves
                    .get(j)
                    .is_some_and(|cs| cs.iter().any(Option::is_some))
            })
            .map(|(&joint, inc)| {
                let e = JointError {
                    joint,
                    rotation_rad: 0.0,
                    translation_m: 0.0,
                };
                let rotation = inc.rotation.as_ref().map(|(frames, qs)| {
                    keys(frames.iter().zip(qs).map(|(&f, q)| (f, q.to_array())))
                });
                let translation = inc.translation.as_ref().map(|(frames, ts)| {
                    keys(frames.iter().zip(ts).map(|(&f, t)| (f, t.to_array())))
                });
                (e, rotation, translation)
            })
            .collect();
    for f in (0..=end as u32).map(f64::from) {
        let pose = encoded.channels_at(cx.rest, f);
        for (e, rotation, translation) in &mut judged {
            let c = pose[e.joint];
            if let Some(k) = rotation {
                let want = DQuat::from_array(played(k, f, Blend::Nlerp, [0.0, 0.0, 0.0, 1.0]));
                let got = euler_rotation([c[3], c[4], c[5]]);
                let angle = 2.0 * got.dot(want.normalize()).abs().min(1.0).acos();
                e.rotation_rad = e.rotation_rad.max(angle);
            }
            if let Some(k) = translation {
                let want = DVec3::from_array(played(k, f, Blend::Lerp, [0.0; 3]));
                let got = DVec3::new(c[0], c[1], c[2]);
                e.translation_m = e.translation_m.max((got - want).length() * cx.space.scale);
            }
        }
    }
    judged.into_iter().map(|(e, _, _)| e).collect()
}

/// Puts a new motion where `dest` says, with its report.
fn put(files: &mut Vec<Compared>, dest: Dest, motion: Motion, mut report: MotionReport) {
    match dest {
        Dest::Slot(f, slot) => {
            report.slots = vec![slot];
            let file = &mut files[f];
            file.mf.motions.push(Slotted {
                slots: vec![slot],
                motion: Some(motion),
            });
            file.reports.push(report);
        }
        Dest::Lone(file) => files.push(Compared {
            file,
            mf: motion.into_lone_file(),
            reports: vec![report],
            closest: 0.0,
        }),
    }
}
