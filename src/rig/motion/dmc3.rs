//! DMC3 motions (`.mot`) and archives (`.pac`) lifted into the IR and lowered back: a track
//! whose curve still holds the keys its payload decodes to gives back its payload's bytes; any
//! other is quantised again by the native encoder, like the original (same compression where it
//! can hold the curve, the same time offset where the keys fit it, the key flags).
//!
//! By the executable's reading ([`Reading::Exe`]) a key's frame is its time word plus the track's
//! time offset and each segment's interpolation is its left key's; by the old one
//! ([`Reading::Community`], glTFs written before) frames are the time words and a compression
//! has one interpolation, and the mask bits go the other way round within each triple.

use super::{
    Channel, Curve, FilePayload, Interpolation, Key, Motion, MotionError, MotionFile,
    MotionPayload, MotionTrackProblem, Reading, Reencoded, SlotUse, Slotted, Track, TrackPayload,
};
use crate::native::dmc3::motion::{
    Channel as MotChannel, Compression, KeyIn, Mot, Track as MotTrack, CHANNEL_BITS, TIME_FRAME,
};
use crate::native::dmc3::pac::{MemberKind, Pac, SlotEdit};

/// The IR channel of a mask channel (the same order: translation, rotation, scale × X, Y, Z).
pub fn channel_of(c: MotChannel) -> Channel {
    Channel::from_index(c as usize).unwrap_or(Channel {
        property: super::Property::Translation,
        axis: 0,
    })
}

/// The mask channel of an IR channel.
pub fn native_channel(c: Channel) -> MotChannel {
    MotChannel::ALL
        .get(c.index())
        .copied()
        .unwrap_or(MotChannel::Tx)
}

/// The mask bit of channel `c` by `reading`: the executable's table, or bit 8 down to bit 0
/// for translation X ... scale Z by the old reading.
pub fn mask_bit(c: Channel, reading: Reading) -> u16 {
    match reading {
        Reading::Exe => native_channel(c).mask(),
        Reading::Community => 1 << (8 - c.index().min(8)),
    }
}

/// The (node, channel) of every set bit of `masks` by `reading`, in file order: node by node,
/// channels in the order translation X ... scale Z in both readings.
pub fn targets(masks: &[u16], reading: Reading) -> Vec<(usize, Channel)> {
    let channels: Vec<Channel> = (0..9).filter_map(Channel::from_index).collect();
    masks
        .iter()
        .enumerate()
        .flat_map(|(n, &m)| {
            channels
                .iter()
                .filter(move |&&c| m & mask_bit(c, reading) != 0)
                .map(move |&c| (n, c))
        })
        .collect()
}

/// The curve a native track holds by `reading` (docs/formats.md, motions: values and tangents
/// dequantised; frames and interpolation as the module doc says).
pub fn curve_of(t: &MotTrack, reading: Reading) -> Curve {
    let whole = if t.is_hermite() {
        Interpolation::Hermite
    } else {
        Interpolation::Linear
    };
    let keys = t
        .decoded_keys()
        .iter()
        .map(|k| {
            let (frame, interpolation) = match reading {
                Reading::Exe if k.hermite => (k.time, Interpolation::Hermite),
                Reading::Exe => (k.time, Interpolation::Linear),
                Reading::Community => (i32::from(k.frame), whole),
            };
            Key {
                frame: f64::from(frame),
                value: f64::from(k.value),
                tangent_in: f64::from(k.in_tangent),
                tangent_out: f64::from(k.out_tangent),
                interpolation,
            }
        })
        .collect();
    Curve { keys }
}

/// A motion into the IR by `reading`.
pub fn lift(mut mot: Mot, reading: Reading) -> Motion {
    let tracks = std::mem::take(&mut mot.tracks);
    let tracks = targets(&mot.masks, reading)
        .into_iter()
        .zip(tracks)
        .map(|((joint, channel), t)| Track {
            joint,
            channel,
            curve: curve_of(&t, reading),
            native: Some(TrackPayload::Dmc3(t)),
        })
        .collect();
    Motion {
        joints: mot.masks.len(),
        end_frame: f64::from(f32::from_bits(mot.header.end_frame_bits)),
        tracks,
        reading,
        native: MotionPayload::Dmc3(Box::new(mot)),
    }
}

/// The compression a curve is encoded in again: the payload's `was` when it can hold the
/// curve's segments, else the u16 one that can.
fn compression_for(was: Option<Compression>, curve: &Curve, reading: Reading) -> Compression {
    let hermite = curve.has_segment(Interpolation::Hermite);
    let linear = curve.has_segment(Interpolation::Linear);
    match (reading, was) {
        // Compression 3 holds both, segment by segment.
        (Reading::Exe, Some(Compression::U16Hermite)) => Compression::U16Hermite,
        (Reading::Exe, Some(c)) if c.is_hermite() && !linear || !c.is_hermite() && !hermite => c,
        (Reading::Community, Some(c)) if c.is_hermite() == hermite => c,
        _ if hermite => Compression::U16Hermite,
        _ => Compression::U16Linear,
    }
}

/// A curve's key frames as whole numbers (or the problem with the first that is not one).
fn whole_frames(t: &Track) -> Result<Vec<i64>, MotionError> {
    t.curve
        .keys
        .iter()
        .enumerate()
        .map(|(key, k)| {
            if k.frame.fract() == 0.0 && k.frame.abs() <= 65536.0 {
                Ok(k.frame as i64)
            } else {
                Err(track_problem(
                    t,
                    MotionTrackProblem::Frame {
                        key,
                        frame: k.frame,
                    },
                ))
            }
        })
        .collect()
}

/// The time offset a re-encoded track is written with: the payload's `was` when every key's
/// frame less it fits a time word, else 0, else the first key's frame; `None` when none fits.
fn time_offset_for(was: i16, frames: &[i64]) -> Option<i16> {
    let first = frames.first().copied().unwrap_or(0);
    let fits = |o: i64| {
        frames
            .iter()
            .all(|f| (0..=i64::from(TIME_FRAME)).contains(&(f - o)))
    };
    let first = i16::try_from(first).ok().map(i64::from);
    [Some(i64::from(was)), Some(0), first]
        .into_iter()
        .flatten()
        .find(|&o| fits(o))
        .and_then(|o| i16::try_from(o).ok())
}

/// `problem` of track `t`.
fn track_problem(t: &Track, problem: MotionTrackProblem) -> MotionError {
    MotionError::Track {
        joint: t.joint,
        channel: t.channel,
        problem,
    }
}

/// The native track of an IR track: its payload when the curve is still the payload's, else the
/// curve encoded like the payload (or as u16 keys for a track made in the IR).
fn lower_track(
    t: &Track,
    reading: Reading,
    reencoded: &mut Vec<Reencoded>,
) -> Result<MotTrack, MotionError> {
    let payload = t.native.as_ref().map(|TrackPayload::Dmc3(p)| p);
    if let Some(p) = payload {
        if t.curve.same_keys(&curve_of(p, reading).keys) {
            return Ok(p.clone());
        }
    }
    let compression = compression_for(payload.and_then(|p| p.compression()), &t.curve, reading);
    let was = payload.map_or(0, |p| p.time_offset());
    let frames = whole_frames(t)?;
    let offset = match reading {
        Reading::Exe => time_offset_for(was, &frames).ok_or_else(|| {
            let (first, last) = (frames.first(), frames.last());
            track_problem(
                t,
                MotionTrackProblem::Spread {
                    first: first.copied().unwrap_or(0),
                    last: last.copied().unwrap_or(0),
                },
            )
        })?,
        // Frames are the time words; the offset stays as it was.
        Reading::Community => was,
    };
    let flags: Vec<bool> = payload
        .map(|p| p.decoded_keys().iter().map(|k| k.flag).collect())
        .unwrap_or_default();
    let by_segment = reading == Reading::Exe && compression.flag_chooses_segment();
    // By the old reading frames are the time words themselves.
    let played_from = match reading {
        Reading::Exe => i64::from(offset),
        Reading::Community => 0,
    };
    let mut keys = Vec::with_capacity(t.curve.keys.len());
    for (i, (k, f)) in t.curve.keys.iter().zip(&frames).enumerate() {
        let word = f - played_from;
        let frame = u16::try_from(word)
            .ok()
            .filter(|&w| w <= TIME_FRAME)
            .ok_or_else(|| {
                track_problem(
                    t,
                    MotionTrackProblem::Frame {
                        key: i,
                        frame: k.frame,
                    },
                )
            })?;
        let flag = if by_segment {
            k.interpolation == Interpolation::Hermite
        } else {
            let kept = flags.get(i).or(flags.last()).copied();
            kept.unwrap_or(compression.is_hermite())
        };
        keys.push(KeyIn {
            frame,
            flag,
            value: k.value as f32,
            in_tangent: k.tangent_in as f32,
            out_tangent: k.tangent_out as f32,
        });
    }
    let track = MotTrack::encode(compression, offset, &keys).map_err(|e| MotionError::Encode {
        joint: t.joint,
        channel: t.channel,
        source: e,
    })?;
    reencoded.push(Reencoded {
        joint: t.joint,
        channel: t.channel,
        keys: keys.len(),
        error: track.quantisation_error(&keys),
    });
    Ok(track)
}

/// A motion back to its native form, with what had to be encoded again.
pub fn lower(m: &Motion) -> Result<(Mot, Vec<Reencoded>), MotionError> {
    let MotionPayload::Dmc3(shell) = &m.native;
    let mut mot = (**shell).clone();
    let n = mot.masks.len();
    if m.joints != n {
        return Err(MotionError::Joints {
            motion: m.joints,
            native: n,
        });
    }
    // Native order: node by node, channels translation X ... scale Z (both readings).
    let mut order: Vec<&Track> = m.tracks.iter().collect();
    order.sort_by_key(|t| (t.joint, t.channel.index()));
    let mut masks = vec![0u16; n];
    for t in &order {
        let bit = mask_bit(t.channel, m.reading);
        let mask = masks
            .get_mut(t.joint)
            .ok_or_else(|| track_problem(t, MotionTrackProblem::JointPastEnd(n)))?;
        if *mask & bit != 0 {
            return Err(track_problem(t, MotionTrackProblem::Duplicate));
        }
        *mask |= bit & CHANNEL_BITS;
    }
    let mut reencoded = Vec::new();
    let tracks = order
        .iter()
        .map(|t| lower_track(t, m.reading, &mut reencoded))
        .collect::<Result<Vec<_>, _>>()?;
    if masks != mot.masks {
        mot.masks = masks;
    }
    mot.tracks = tracks;
    Ok((mot, reencoded))
}

/// A `.mot` file into the IR by `reading`.
pub fn lift_mot(mot: Mot, reading: Reading) -> MotionFile {
    MotionFile {
        motions: vec![Slotted {
            slots: Vec::new(),
            motion: Some(lift(mot, reading)),
        }],
        native: FilePayload::Dmc3Mot,
    }
}

/// A `.pac` archive into the IR by `reading`: one motion per motion member (every other member
/// stays in the payload).
pub fn lift_pac(pac: Pac, reading: Reading) -> MotionFile {
    let motions = pac
        .members
        .iter()
        .filter_map(|m| match &m.kind {
            MemberKind::Mot(mot) => Some(Slotted {
                slots: m.slots.clone(),
                motion: Some(lift((**mot).clone(), reading)),
            }),
            _ => None,
        })
        .collect();
    MotionFile {
        motions,
        native: FilePayload::Dmc3Pac(Box::new(pac)),
    }
}

/// The bytes of a lowered motion that goes back into an archive: trailing zeros dropped (the
/// archive pads members again), anything else kept.
fn member_bytes(mut mot: Mot) -> Result<Vec<u8>, MotionError> {
    if mot.tail.iter().all(|&b| b == 0) {
        mot.tail.clear();
    }
    mot.write().map_err(MotionError::Mot)
}

/// A lifted file back to bytes: unchanged members as they were; edited motions encoded again;
/// a motion taken out (`None`) leaves its slots empty.
pub fn lower_file(
    f: &MotionFile,
    reencoded: &mut Vec<(usize, Reencoded)>,
) -> Result<Vec<u8>, MotionError> {
    match &f.native {
        FilePayload::Dmc3Mot => {
            let Some(Slotted {
                motion: Some(m), ..
            }) = f.motions.first()
            else {
                return Err(MotionError::Removed);
            };
            let (mot, r) = lower(m)?;
            reencoded.extend(r.into_iter().map(|r| (0, r)));
            mot.write().map_err(MotionError::Mot)
        }
        FilePayload::Dmc3Pac(pac) => {
            let mut edits = Vec::new();
            let originals: Vec<&Mot> = pac
                .members
                .iter()
                .filter_map(|m| match &m.kind {
                    MemberKind::Mot(mot) => Some(&**mot),
                    _ => None,
                })
                .collect();
            // Motions past the archive's own are new: they take the slots they name.
            for (i, s) in f.motions.iter().enumerate() {
                match &s.motion {
                    None => edits.extend(s.slots.iter().map(|&k| (k, SlotEdit::Remove))),
                    Some(m) => {
                        let (mot, r) = lower(m)?;
                        if originals.get(i).is_none_or(|o| mot != **o) {
                            reencoded.extend(r.into_iter().map(|r| (i, r)));
                            let bytes = member_bytes(mot)?;
                            edits.extend(
                                s.slots
                                    .iter()
                                    .map(|&k| (k, SlotEdit::Replace(bytes.clone()))),
                            );
                        }
                    }
                }
            }
            let pac = if edits.is_empty() {
                pac.as_ref().clone()
            } else {
                pac.edit(&edits).map_err(MotionError::Pac)?
            };
            pac.write().map_err(MotionError::Pac)
        }
    }
}

/// A motion of no tracks ending at `end_frame`, on the shell of `template` (a motion of the same
/// model): the header's undecoded fields are the template's, its end frame is `end_frame`, and
/// +0x14 follows it when it equals the end frame in the template (as in every file of the
/// census). It follows the executable's reading whatever the template's. Returns the motion and
/// what was taken over, for the report.
pub fn blank_like(template: &Motion, end_frame: f64) -> (Motion, String) {
    let MotionPayload::Dmc3(shell) = &template.native;
    let mut mot = (**shell).clone();
    let end_bits = (end_frame as f32).to_bits();
    let h = &mut mot.header;
    let follows = h.unknown_14_bits == h.end_frame_bits;
    let taken = format!(
        "+0x08 {:#x}, +0x10 {}, +0x18 {}, +0x1A {}{}",
        h.unknown_08,
        f32::from_bits(h.unknown_10_bits),
        h.flag_18,
        h.unknown_1a,
        if follows {
            String::new()
        } else {
            format!(", +0x14 {}", f32::from_bits(h.unknown_14_bits))
        }
    );
    h.end_frame_bits = end_bits;
    if follows {
        h.unknown_14_bits = end_bits;
    }
    mot.tracks.clear();
    mot.tail.clear();
    mot.masks.iter_mut().for_each(|m| *m = 0);
    let motion = Motion {
        joints: mot.masks.len(),
        end_frame: f64::from(end_frame as f32),
        tracks: Vec::new(),
        reading: Reading::Exe,
        native: MotionPayload::Dmc3(Box::new(mot)),
    };
    (motion, taken)
}

/// What holds slot `slot` of an archive lifted as `f` (see [`SlotUse`]).
pub fn slot_use(f: &MotionFile, slot: usize) -> SlotUse {
    let FilePayload::Dmc3Pac(pac) = &f.native else {
        return SlotUse::NotAnArchive;
    };
    if let Some(i) = f
        .motions
        .iter()
        .position(|s| s.motion.is_some() && s.slots.contains(&slot))
    {
        return SlotUse::Motion(i);
    }
    match pac.member_of(slot) {
        Some(m) if !matches!(m.kind, MemberKind::Mot(_)) => SlotUse::Other(m.kind.name()),
        // Empty, past the table (it grows), or a motion taken out.
        _ => SlotUse::Free,
    }
}

/// A model of `nodes` bare nodes to play motions on where no model is at hand (verify): a
/// node-domain block whose node k stands 10 units above node k-1 (above node 0 past node 128,
/// as a parent is an i8), unrotated. `None` for 0 or more than 256 nodes.
pub fn bare_rig(nodes: usize) -> Option<crate::rig::Rig> {
    use crate::native::dmc3::{read_block_in, BlockRels, NodeBlock, NodeTransform};
    if nodes == 0 || nodes > 256 {
        return None;
    }
    let step = 10.0f32.to_bits();
    let block = NodeBlock {
        offset: 0,
        rels: BlockRels::canonical(nodes)?,
        unknown_10: [0; 16],
        parents: (0..nodes)
            .map(|k| match k {
                0 => -1,
                k => i8::try_from(k - 1).unwrap_or(0),
            })
            .collect(),
        order: (0..nodes).map(|k| k as u8).collect(),
        groups: vec![0; nodes],
        transforms: (0..nodes)
            .map(|k| NodeTransform {
                ty_bits: if k == 0 { 0 } else { step },
                magnitude_bits: if k == 0 { 0 } else { step },
                ..NodeTransform::default()
            })
            .collect(),
        padding: Vec::new(),
    };
    let bytes = block.to_bytes().ok()?;
    read_block_in(&bytes, 0, nodes)
        .ok()
        .map(|f| crate::rig::lift(crate::native::NativeFile::Dmc3(f)))
}

#[cfg(test)]
mod tests {
    use super::super::{read_file, Property};
    use super::*;
    use crate::native::dmc3::motion::mask_targets;

    fn mot_of(b: &[u8]) -> Mot {
        Mot::read(b).unwrap()
    }

    #[test]
    fn an_edited_curve_is_the_only_track_encoded_again() {
        let b = crate::synth::motion::sample_mot();
        let mut f = read_file(&b).unwrap();
        let m = f.motions[0].motion.as_mut().unwrap();
        let k = m.tracks.len() / 2;
        let edited = (m.tracks[k].joint, native_channel(m.tracks[k].channel));
        m.tracks[k].curve.keys[0].value += 0.25;
        let mut re = Vec::new();
        let after = mot_of(&f.write(&mut re).unwrap());
        let before = mot_of(&b);
        assert_eq!(after.masks, before.masks);
        assert_eq!(re.len(), 1);
        assert_eq!((re[0].1.joint, native_channel(re[0].1.channel)), edited);
        let changed: Vec<(usize, MotChannel)> = mask_targets(&before.masks)
            .zip(before.tracks.iter().zip(&after.tracks))
            .filter(|(_, (x, y))| x != y)
            .map(|(t, _)| t)
            .collect();
        assert_eq!(changed, vec![edited]);
        // The edit is held to quantisation: the new key decodes within the reported error.
        let t = &after.tracks[k];
        let want = f.motions[0].motion.as_ref().unwrap().tracks[k].curve.keys[0].value;
        let got = f64::from(t.decoded_keys()[0].value);
        assert!((got - want).abs() <= re[0].1.error + 1e-12, "{got} {want}");
    }

    #[test]
    fn a_new_channel_sets_its_mask_bit_and_keeps_every_other_track() {
        let b = crate::synth::motion::sample_mot();
        let before = mot_of(&b);
        let mut f = read_file(&b).unwrap();
        let m = f.motions[0].motion.as_mut().unwrap();
        // Node 1 has no translation tracks in the sample (only node 0 has root motion).
        assert_eq!(before.masks[1] & 0x1C0, 0);
        let channel = Channel {
            property: Property::Translation,
            axis: 1,
        };
        m.tracks.push(Track {
            joint: 1,
            channel,
            curve: Curve {
                keys: [(0.0, 2.0), (9.0, 5.0)]
                    .map(|(frame, value)| Key {
                        frame,
                        value,
                        tangent_in: 0.0,
                        tangent_out: 0.0,
                        interpolation: Interpolation::Linear,
                    })
                    .to_vec(),
            },
            native: None,
        });
        let mut re = Vec::new();
        let after = mot_of(&f.write(&mut re).unwrap());
        assert_eq!(after.masks[1], before.masks[1] | 0x080);
        assert_eq!(after.tracks.len(), before.tracks.len() + 1);
        let mut old = before.tracks.iter();
        for ((node, c), t) in mask_targets(&after.masks).zip(&after.tracks) {
            if (node, c) == (1, MotChannel::Ty) {
                assert_eq!(t.compression(), Some(Compression::U16Linear));
                continue;
            }
            assert_eq!(Some(t), old.next(), "node {node} {c}");
        }
        assert_eq!(re.len(), 1);
    }

    #[test]
    fn a_removed_archive_motion_leaves_its_slots_empty() {
        let b = crate::synth::motion::sample_pac();
        let mut f = read_file(&b).unwrap();
        let slots = f.motions[1].slots.clone();
        f.motions[1].motion = None;
        let pac = Pac::read(&f.write(&mut Vec::new()).unwrap()).unwrap();
        let before = Pac::read(&b).unwrap();
        for s in 0..before.offsets.len() {
            let emptied = slots.contains(&s);
            assert_eq!(
                pac.offsets[s] == 0,
                emptied || before.offsets[s] == 0,
                "slot {s}"
            );
        }
        assert_eq!(pac.gap, before.gap);
        // A lone motion file whose motion is gone has nothing to write.
        let mut one = read_file(&crate::synth::motion::sample_mot()).unwrap();
        one.motions[0].motion = None;
        assert_eq!(one.write(&mut Vec::new()), Err(MotionError::Removed));
    }
}
