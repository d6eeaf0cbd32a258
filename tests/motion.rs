//! DMC3 motions and archives: property round trips over the generator, exact decoded values of
//! hand-built bytes, and the reader's refusals with the track/slot and offset they name.

mod common;
use common::{f32s, u16s};

use proptest::prelude::*;
use rigtrip::native::dmc3::motion::{
    dequantise, Channel, Compression, KeyIn, KeyU16, Keys, Mot, MotError, Track, TrackProblem,
};
use rigtrip::native::dmc3::pac::{MemberKind, Pac, PacError, SlotEdit};
use rigtrip::synth::motion as synth;

// ---------------------------------------------------------------------------------------------
// Hand-built bytes (independent of the crate's writer)
// ---------------------------------------------------------------------------------------------

/// Two nodes: node 0 animates tz (mask 0x100 alone: translation Z in the executable's table;
/// compression 2, two keys), node 1 rz (0x020; compression 3, one key). Header size 0x30 (0x1E
/// + 4 = 0x22, tail of 14 bytes, non-zero), time offset -11 on the second.
fn two_track_mot() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0x30u32.to_le_bytes());
    b.extend_from_slice(b"MOT\0");
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&f32s(&[30.0, 0.0, 30.0]));
    b.extend_from_slice(&u16s(&[1, 2, 2]));
    b.extend_from_slice(&u16s(&[0x100, 0x020]));
    b.extend_from_slice(&[7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]);
    assert_eq!(b.len(), 0x30);
    b.extend_from_slice(&2u32.to_le_bytes());
    // track 0 at 0x34: span 0x18, 2 keys, compression 2, offset 0, min -10, range 20
    b.extend_from_slice(&u16s(&[0x18, 2, 2, 0]));
    b.extend_from_slice(&f32s(&[-10.0, 20.0]));
    b.extend_from_slice(&u16s(&[0, 0, 30, 65535]));
    // track 1 at 0x4C: span 0x28, 1 key, compression 3, offset -11, min 1, range 2,
    // in min -1 range 4, out min 0 range 1
    b.extend_from_slice(&u16s(&[0x28, 1, 3, 0xFFF5]));
    b.extend_from_slice(&f32s(&[1.0, 2.0, -1.0, 4.0, 0.0, 1.0]));
    b.extend_from_slice(&u16s(&[0x8005, 32768, 65535, 0]));
    b
}

/// Reads `b` with the byte at `at` set to `value`.
fn read_patched(b: &[u8], at: usize, value: u8) -> Result<Mot, MotError> {
    let mut s = b.to_vec();
    s[at] = value;
    Mot::read(&s)
}

#[test]
fn decodes_hand_built_values_using_the_span() {
    let b = two_track_mot();
    let m = Mot::read(&b).unwrap();
    assert_eq!(
        m.header_tail,
        vec![7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]
    );
    let t: Vec<_> = m.targets().map(|(n, c, t)| (n, c, t.clone())).collect();
    assert_eq!(t.len(), 2);
    assert_eq!((t[0].0, t[0].1), (0, Channel::Tz));
    assert_eq!((t[1].0, t[1].1), (1, Channel::Rz));
    let k0 = t[0].2.decoded_keys();
    assert_eq!(k0.len(), 2);
    assert_eq!((k0[0].frame, k0[0].flag, k0[0].value), (0, false, -10.0));
    assert_eq!((k0[1].frame, k0[1].flag, k0[1].value), (30, false, 10.0));
    assert!(!t[0].2.is_hermite());
    let k1 = t[1].2.decoded_keys();
    assert_eq!(t[1].2.time_offset(), -11);
    assert!(t[1].2.is_hermite());
    // Key word 0x8005: frame 5, bit 15 set (a Hermite segment); it plays at 5 - 11.
    assert_eq!((k1[0].frame, k1[0].flag, k1[0].hermite), (5, true, true));
    assert_eq!(k1[0].time, -6);
    assert_eq!((k0[1].time, k0[1].hermite), (30, false));
    // 32768 * 2 / 65535 + 1, in f64 rounded once
    assert_eq!(k1[0].value, (32768.0f64 * 2.0 / 65535.0 + 1.0) as f32);
    assert_eq!(k1[0].in_tangent, 3.0);
    assert_eq!(k1[0].out_tangent, 0.0);
    assert_eq!(m.write().unwrap(), b);
}

#[test]
fn a_larger_span_keeps_its_extra_bytes() {
    let mut b = two_track_mot();
    // track 0 span 0x18 -> 0x1B, three extra bytes after its keys
    b[0x34] = 0x1B;
    b.splice(0x4C..0x4C, [0xAA, 0xBB, 0xCC]);
    let m = Mot::read(&b).unwrap();
    assert_eq!(m.tracks[0].extra, vec![0xAA, 0xBB, 0xCC]);
    assert_eq!(m.tracks[1].decoded_keys()[0].in_tangent, 3.0);
    assert_eq!(m.write().unwrap(), b);
}

#[test]
fn refusals_name_track_and_offset() {
    let b = two_track_mot();
    // span too short for the keys
    let e = read_patched(&b, 0x34, 0x17).unwrap_err();
    assert!(matches!(
        e,
        MotError::Track {
            index: 0,
            node: 0,
            channel: Channel::Tz,
            offset: 0x34,
            problem: TrackProblem::SpanTooShort { span: 0x17, .. }
        }
    ));
    assert_eq!(
        e.to_string(),
        "track 0 (node 0 tz) at offset 0x34: span 0x17 is shorter than the 0x18 bytes its 2 keys need"
    );
    // unknown compression
    assert!(matches!(
        read_patched(&b, 0x4C + 4, 4),
        Err(MotError::Track {
            index: 1,
            node: 1,
            channel: Channel::Rz,
            offset: 0x4C,
            problem: TrackProblem::UnknownCompression(4)
        })
    ));
    // truncated keys of the second track
    let e = Mot::read(&b[..b.len() - 1]).unwrap_err();
    assert!(matches!(
        e,
        MotError::Track {
            index: 1,
            offset: 0x4C,
            problem: TrackProblem::Truncated { what: "keys", .. },
            ..
        }
    ));
    // a mask bit beyond 9
    assert!(matches!(
        read_patched(&b, 0x1F, 0x03),
        Err(MotError::MaskBits {
            node: 0,
            mask: 0x0300,
            offset: 0x1E
        })
    ));
    // track count that is not the set bits
    assert!(matches!(
        read_patched(&b, 0x30, 3),
        Err(MotError::TrackCount {
            count: 3,
            expected: 2,
            offset: 0x30
        })
    ));
    // header size too small for the node count
    assert!(matches!(
        read_patched(&b, 0, 0x21),
        Err(MotError::HeaderSize {
            header_size: 0x21,
            nodes: 2,
            need: 0x22
        })
    ));
}

/// The counts a motion stores (node count +0x1C, the track count word, each head's key count)
/// are the lists' lengths on write: lists changed in memory without any count give a file whose
/// counts are theirs and which reads back to the same lists.
#[test]
fn counts_are_derived_from_the_lists_on_write() {
    let mut m = Mot::read(&two_track_mot()).unwrap();
    // A third node without channels (the header tail gives up its two bytes so that the
    // header size stays 0x30), and a third key on track 0 (its span grows by one key).
    m.masks.push(0);
    m.header_tail.drain(1..3);
    let Keys::U16(k) = &mut m.tracks[0].keys else {
        panic!("track 0 is compression 2")
    };
    k.push(KeyU16 {
        time: 40,
        value: 100,
    });
    m.tracks[0].head.span += 4;
    let b = m.write().unwrap();
    assert_eq!(b[0x1C..0x1E], [3, 0], "node count");
    assert_eq!(b[0x30..0x34], [2, 0, 0, 0], "track count");
    assert_eq!(
        b[0x34..0x38],
        [0x1C, 0, 3, 0],
        "span and key count of track 0"
    );
    assert_eq!(
        b[0x50..0x54],
        [0x28, 0, 1, 0],
        "span and key count of track 1"
    );
    assert_eq!(b.len(), two_track_mot().len() + 4);
    assert_eq!(Mot::read(&b).unwrap(), m);

    // Track 1 and its mask bit removed: one track.
    let mut m = Mot::read(&two_track_mot()).unwrap();
    m.masks[1] = 0;
    m.tracks.truncate(1);
    let b = m.write().unwrap();
    assert_eq!(b[0x30..0x34], [1, 0, 0, 0], "track count");
    assert_eq!(b.len(), 0x34 + 0x18);
    assert_eq!(Mot::read(&b).unwrap(), m);
}

/// What the writer still refuses: lists that disagree with each other (one track per set mask
/// bit), and more masks than the node count can hold.
#[test]
fn writer_refuses_lists_that_disagree() {
    let mut m = Mot::read(&two_track_mot()).unwrap();
    m.masks[1] = 0;
    assert_eq!(
        m.write().unwrap_err(),
        MotError::Tracks {
            tracks: 2,
            channels: 1
        }
    );
    assert_eq!(
        m.write().unwrap_err().to_string(),
        "cannot write motion: 2 tracks, but the masks set 1 channels"
    );
    let mut m = Mot::read(&two_track_mot()).unwrap();
    m.masks.resize(0x10000, 0);
    assert_eq!(
        m.write().unwrap_err().to_string(),
        "cannot write motion header: 65536 masks, but the node count (+0x1c) is a u16"
    );
}

#[test]
fn encode_quantises_to_nearest_and_reports_the_error() {
    let keys: Vec<KeyIn> = [(0u16, 0.0f32), (10, 1.0), (20, 0.25)]
        .iter()
        .map(|&(frame, value)| KeyIn {
            frame,
            flag: false,
            value,
            in_tangent: 0.0,
            out_tangent: 0.0,
        })
        .collect();
    let t = Track::encode(Compression::U16Linear, -19, &keys).unwrap();
    assert_eq!(
        (
            t.head.span,
            t.keys.len(),
            t.head.compression,
            t.time_offset()
        ),
        (0x1C, 3, 2, -19)
    );
    assert_eq!((t.min(), t.range()), (0.0, 1.0));
    let q: Vec<u16> = t
        .decoded_keys()
        .iter()
        .map(|k| (k.value * 65535.0).round() as u16)
        .collect();
    assert_eq!(q, vec![0, 65535, 16384]);
    let err = t.quantisation_error(&keys);
    assert_eq!(err, (f64::from(dequantise(16384, 0.0, 1.0)) - 0.25).abs());
    assert!(err > 0.0 && err < 1.0 / 65535.0);
    assert!(Track::encode(
        Compression::U16Linear,
        0,
        &[KeyIn {
            frame: 0x8000,
            ..keys[0]
        }]
    )
    .is_err());
}

/// Compressions 0 and 1 by hand: f32 keys of 8 and 16 bytes right after the 0x10-byte head (no
/// tangent ranges: those are compression 3's), key times plus the time offset.
#[test]
fn f32_compressions_read_their_keys_without_tangent_ranges() {
    let mut b = Vec::new();
    b.extend_from_slice(&0x30u32.to_le_bytes());
    b.extend_from_slice(b"MOT\0");
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&f32s(&[12.0, 0.0, 12.0]));
    b.extend_from_slice(&u16s(&[0, 0, 2]));
    // node 0 translation X (0x040), node 1 scale Z (0x004)
    b.extend_from_slice(&u16s(&[0x040, 0x004]));
    b.resize(0x30, 0);
    b.extend_from_slice(&2u32.to_le_bytes());
    // compression 0, offset 2: keys at words 3 and 10
    b.extend_from_slice(&u16s(&[0x20, 2, 0, 2]));
    b.extend_from_slice(&f32s(&[0.0, 0.0]));
    b.extend_from_slice(&u16s(&[3, 0]));
    b.extend_from_slice(&f32s(&[1.5]));
    b.extend_from_slice(&u16s(&[10, 0]));
    b.extend_from_slice(&f32s(&[-2.0]));
    // compression 1, offset 0: {time, pad, value, in, out}
    b.extend_from_slice(&u16s(&[0x30, 2, 1, 0]));
    b.extend_from_slice(&f32s(&[9.0, 9.0]));
    b.extend_from_slice(&u16s(&[0x8000, 0]));
    b.extend_from_slice(&f32s(&[1.0, 0.5, 0.25]));
    b.extend_from_slice(&u16s(&[8, 0]));
    b.extend_from_slice(&f32s(&[2.0, 0.0, 0.0]));
    let m = Mot::read(&b).unwrap();
    let t: Vec<_> = m.targets().map(|(n, c, t)| (n, c, t.clone())).collect();
    assert_eq!((t[0].0, t[0].1), (0, Channel::Tx));
    assert_eq!((t[1].0, t[1].1), (1, Channel::Sz));
    assert!(t[1].2.tangents.is_none());
    let k0 = t[0].2.decoded_keys();
    let k1 = t[1].2.decoded_keys();
    let plain = |k: &[rigtrip::native::dmc3::motion::DecodedKey]| -> Vec<_> {
        k.iter()
            .map(|k| (k.time, k.hermite, k.value, k.in_tangent, k.out_tangent))
            .collect()
    };
    assert_eq!(
        plain(&k0),
        vec![(5, false, 1.5, 0.0, 0.0), (12, false, -2.0, 0.0, 0.0)]
    );
    assert_eq!(
        plain(&k1),
        vec![(0, true, 1.0, 0.5, 0.25), (8, true, 2.0, 0.0, 0.0)]
    );
    assert_eq!(m.write().unwrap(), b);
    // The tests' own reader agrees.
    let own = common::motplay::read(&b);
    assert_eq!(own.tracks[1].keys[0].tout, 0.25);
    assert_eq!(own.tracks[0].keys[1].time, 12.0);
}

/// The game reads a key count as signed: more than 32767 keys are refused by name, and so are
/// keys that a u16 span cannot hold.
#[test]
fn key_counts_past_what_the_game_reads_are_refused_by_name() {
    let key = KeyIn {
        frame: 0,
        flag: false,
        value: 0.0,
        in_tangent: 0.0,
        out_tangent: 0.0,
    };
    let e = Track::encode(Compression::U16Linear, 0, &vec![key; 32768]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "32768 keys: a track holds at most 32767 (the game reads the key count as signed)"
    );
    let e = Track::encode(Compression::U16Linear, 0, &vec![key; 16380]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "16380 keys of compression 2 need 65536 bytes, but the span is a u16"
    );
    assert!(Track::encode(Compression::U16Linear, 0, &vec![key; 16379]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Archives
// ---------------------------------------------------------------------------------------------

/// An archive of three slots: the two-track motion padded to 16 bytes (slot 0), an empty slot,
/// opaque bytes (slot 2), with 4 gap bytes after the table; and the motion member's length.
fn hand_pac() -> (Vec<u8>, usize) {
    let mut b = b"PAC\0".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    let first = 0x14 + 4; // table ends at 0x14, 4 gap bytes
    let mut member = two_track_mot();
    member.resize(member.len().div_ceil(16) * 16, 0);
    let second = first + member.len() as u32;
    for o in [first, 0, second] {
        b.extend_from_slice(&o.to_le_bytes());
    }
    b.extend_from_slice(&[1, 2, 3, 4]);
    b.extend_from_slice(&member);
    b.extend_from_slice(b"not a motion");
    (b, member.len())
}

/// An archive's counts are its lists' lengths on write as well: the slot count word is the
/// number of slots, and a motion member's counts are its own lists'.
#[test]
fn archive_counts_are_derived_from_the_lists_on_write() {
    let (b, member_len) = hand_pac();
    let mut p = Pac::read(&b).unwrap();
    // A fourth, empty slot (the table grows into the 4 gap bytes, so no member moves).
    p.offsets.push(0);
    p.gap.clear();
    // Member 0 loses track 1 and its mask bit (its tail pads it to its old length).
    let MemberKind::Mot(m) = &mut p.members[0].kind else {
        panic!("member 0 is not a motion")
    };
    m.masks[1] = 0;
    let t = m.tracks.pop().unwrap();
    m.tail.resize(m.tail.len() + t.encoded_len() as usize, 0);
    let out = p.write().unwrap();
    assert_eq!(out[4..8], [4, 0, 0, 0], "slot count");
    assert_eq!(out[0x14..0x18], [0, 0, 0, 0], "slot 3");
    let at = 0x18;
    assert_eq!(
        out[at + 0x30..at + 0x34],
        [1, 0, 0, 0],
        "member 0's track count"
    );
    assert_eq!(out.len(), b.len());
    assert_eq!(out[at + member_len..], b[at + member_len..]);
    assert_eq!(Pac::read(&out).unwrap(), p);
}

#[test]
fn archive_with_a_motion_member_empty_slot_and_gap() {
    let mot = two_track_mot();
    let (b, member_len) = hand_pac();
    let first = 0x14 + 4; // table ends at 0x14, 4 gap bytes
    let p = Pac::read(&b).unwrap();
    assert_eq!(p.gap, vec![1, 2, 3, 4]);
    assert_eq!(p.members.len(), 2);
    let MemberKind::Mot(m) = &p.members[0].kind else {
        panic!("member 0 is not a motion")
    };
    assert_eq!(m.tail.len(), member_len - mot.len());
    assert_eq!(
        p.members[1].kind,
        MemberKind::Opaque(b"not a motion".to_vec())
    );
    assert_eq!(p.empty_slots().collect::<Vec<_>>(), vec![1]);
    assert_eq!(p.write().unwrap(), b);
    // slot 2 past the end
    let mut s = b.clone();
    s[0x10..0x14].copy_from_slice(&(b.len() as u32).to_le_bytes());
    assert!(matches!(
        Pac::read(&s),
        Err(PacError::PastEnd {
            slot: 2,
            at: 0x10,
            ..
        })
    ));
    // removing slot 0 moves the opaque member to the table's gap end
    let e = p.edit(&[(0, SlotEdit::Remove)]).unwrap();
    assert_eq!(e.offsets, vec![0, 0, first]);
    assert_eq!(e.write().unwrap()[first as usize..], *b"not a motion");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn mot_write_read_is_identity(seed in any::<u64>()) {
        let data = synth::random_mot(seed);
        let m = Mot::read(&data).unwrap();
        prop_assert_eq!(m.write().unwrap(), data);
    }

    #[test]
    fn pac_write_read_is_identity(seed in any::<u64>()) {
        let data = synth::random_pac(seed);
        let p = Pac::read(&data).unwrap();
        prop_assert_eq!(p.write().unwrap(), data);
    }

    #[test]
    fn model_motions_round_trip_and_are_clean(seed in any::<u64>(), nodes in 1usize..40) {
        let m = synth::motion_for_model(seed, &synth::chain_rest(nodes));
        let data = m.write().unwrap();
        prop_assert_eq!(Mot::read(&data).unwrap(), m.clone());
        prop_assert_eq!(m.masks.len(), nodes);
        for (_, c, t) in m.targets() {
            let k = t.decoded_keys();
            prop_assert!(k.windows(2).all(|w| w[0].frame < w[1].frame));
            let bound = match c.kind_index() { 0 => 300.5, 1 => std::f32::consts::PI + 1e-4, _ => 1.2001 };
            prop_assert!(k.iter().all(|k| k.value.abs() <= bound));
        }
    }
}
