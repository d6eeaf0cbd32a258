//! Accessor component types (the GL enums of `componentType`) and element types (`type`):
//! sizes, names, little-endian reads and the normalisation glTF defines.

/// BYTE.
pub const BYTE: u64 = 5120;
/// UNSIGNED_BYTE.
pub const UNSIGNED_BYTE: u64 = 5121;
/// SHORT.
pub const SHORT: u64 = 5122;
/// UNSIGNED_SHORT.
pub const UNSIGNED_SHORT: u64 = 5123;
/// UNSIGNED_INT.
pub const UNSIGNED_INT: u64 = 5125;
/// FLOAT.
pub const FLOAT: u64 = 5126;

/// Size in bytes of a component type.
#[inline]
pub fn size(ctype: u64) -> Option<usize> {
    match ctype {
        BYTE | UNSIGNED_BYTE => Some(1),
        SHORT | UNSIGNED_SHORT => Some(2),
        UNSIGNED_INT | FLOAT => Some(4),
        _ => None,
    }
}

/// Name of a component type as the spec writes it.
pub fn name(ctype: u64) -> String {
    match ctype {
        BYTE => "BYTE".into(),
        UNSIGNED_BYTE => "UNSIGNED_BYTE".into(),
        SHORT => "SHORT".into(),
        UNSIGNED_SHORT => "UNSIGNED_SHORT".into(),
        UNSIGNED_INT => "UNSIGNED_INT".into(),
        FLOAT => "FLOAT".into(),
        c => format!("component type {c}"),
    }
}

/// Whether sparse indices may be of this type (the unsigned integers).
#[inline]
pub fn is_index(ctype: u64) -> bool {
    matches!(ctype, UNSIGNED_BYTE | UNSIGNED_SHORT | UNSIGNED_INT)
}

/// The element type's name, rows and columns: `VEC3` is ("VEC3", 3, 1), `MAT4` ("MAT4", 4, 4).
#[inline]
pub fn shape(type_name: &str) -> Option<(&'static str, usize, usize)> {
    Some(match type_name {
        "SCALAR" => ("SCALAR", 1, 1),
        "VEC2" => ("VEC2", 2, 1),
        "VEC3" => ("VEC3", 3, 1),
        "VEC4" => ("VEC4", 4, 1),
        "MAT2" => ("MAT2", 2, 2),
        "MAT3" => ("MAT3", 3, 3),
        "MAT4" => ("MAT4", 4, 4),
        _ => return None,
    })
}

/// One little-endian component at `off` of `b`, as f64 (not normalised); `None` when it is not
/// all there or the type is unknown.
#[inline]
pub fn read(b: &[u8], off: usize, ctype: u64) -> Option<f64> {
    let get = |n: usize| b.get(off..off.checked_add(n)?);
    Some(match ctype {
        BYTE => f64::from(get(1)?[0] as i8),
        UNSIGNED_BYTE => f64::from(get(1)?[0]),
        SHORT => {
            let s = get(2)?;
            f64::from(i16::from_le_bytes([s[0], s[1]]))
        }
        UNSIGNED_SHORT => {
            let s = get(2)?;
            f64::from(u16::from_le_bytes([s[0], s[1]]))
        }
        UNSIGNED_INT => {
            let s = get(4)?;
            f64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        }
        FLOAT => {
            let s = get(4)?;
            f64::from(f32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        }
        _ => return None,
    })
}

/// A normalised integer component as glTF maps it: signed `max(c / MAX, -1)`, unsigned
/// `c / MAX`; a float is returned as it is.
#[inline]
pub fn normalise(ctype: u64, x: f64) -> f64 {
    match ctype {
        BYTE => (x / 127.0).max(-1.0),
        UNSIGNED_BYTE => x / 255.0,
        SHORT => (x / 32767.0).max(-1.0),
        UNSIGNED_SHORT => x / 65535.0,
        UNSIGNED_INT => x / 4_294_967_295.0,
        _ => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_normalises_every_type() {
        let b = [0x80, 0xFF, 0x00, 0x80, 0xFF, 0xFF, 0xFF, 0xFF];
        assert_eq!(read(&b, 0, BYTE), Some(-128.0));
        assert_eq!(read(&b, 1, UNSIGNED_BYTE), Some(255.0));
        assert_eq!(read(&b, 2, SHORT), Some(-32768.0));
        assert_eq!(read(&b, 2, UNSIGNED_SHORT), Some(32768.0));
        assert_eq!(read(&b, 4, UNSIGNED_INT), Some(4_294_967_295.0));
        assert_eq!(read(&b, 4, FLOAT).map(f64::is_nan), Some(true));
        assert_eq!(read(&b, 5, UNSIGNED_INT), None);
        assert_eq!(read(&b, 0, 5124), None);
        assert_eq!(normalise(BYTE, -128.0), -1.0);
        assert_eq!(normalise(SHORT, -32768.0), -1.0);
        assert_eq!(normalise(UNSIGNED_BYTE, 255.0), 1.0);
        assert_eq!(normalise(FLOAT, 3.5), 3.5);
        assert_eq!(size(SHORT), Some(2));
        assert_eq!(size(5124), None);
        assert_eq!(name(UNSIGNED_INT), "UNSIGNED_INT");
        assert_eq!(name(7), "component type 7");
        assert_eq!(shape("MAT3"), Some(("MAT3", 3, 3)));
        assert_eq!(shape("VEC4"), Some(("VEC4", 4, 1)));
        assert_eq!(shape("vec4"), None);
        assert!(is_index(UNSIGNED_BYTE) && !is_index(BYTE) && !is_index(FLOAT));
    }
}
