//! Numbers for people: the one formatter every text report and message uses for lengths,
//! angles, plain values and rates, so no float noise (`0.10000000149011612`, `7.85e-1 rad`)
//! reaches a reader. JSON keeps the exact values; only text goes through here.

/// `x` with at most `decimals` decimals, trailing zeros and a `-0` dropped: `0.1`, `12`, `-3.25`
/// (from 1e9 on, four digits and an exponent: `1.000e30`).
pub fn number(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x.abs() >= 1e9 {
        // Beyond any length or count a rig holds: four digits and an exponent, not 30 digits.
        return format!("{x:.3e}");
    }
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A value with about four significant digits, whatever its size (`0.0001235`, `12.35`,
/// `12346`): for values without a unit of their own (a scale factor, a residue).
pub fn value(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return number(x, 0);
    }
    let magnitude = x.abs().log10().floor() as i32;
    number(x, (3 - magnitude).clamp(0, 12) as usize)
}

/// A length given in metres, in mm below one metre (`100 mm`, `0.25 mm`, `0.00003215 mm`:
/// four significant digits below a millimetre) and in m above (`1.235 m`).
pub fn length(metres: f64) -> String {
    let mm = metres * 1000.0;
    if mm.is_finite() && mm.abs() < 1.0 {
        format!("{} mm", value(mm))
    } else if metres.is_finite() && metres.abs() < 1.0 {
        format!("{} mm", number(mm, 2))
    } else {
        format!("{} m", number(metres, 3))
    }
}

/// A vector of lengths in metres, in one unit chosen by its largest component:
/// `(100, 0, -2.5) mm`, `(1.2, 0, 0) m`.
pub fn lengths(metres: &[f64]) -> String {
    let big = metres.iter().any(|x| !x.is_finite() || x.abs() >= 1.0);
    let (factor, decimals, unit) = if big {
        (1.0, 3, "m")
    } else {
        (1000.0, 2, "mm")
    };
    let parts: Vec<String> = metres
        .iter()
        .map(|x| number(x * factor, decimals))
        .collect();
    format!("({}) {unit}", parts.join(", "))
}

/// Plain values without a unit of their own, each with about four significant digits:
/// `(0.7071, 0, 0, 0.7071)`, `(12.35, -300, 1.000e30)`.
pub fn values(xs: &[f64]) -> String {
    let parts: Vec<String> = xs.iter().map(|&x| value(x)).collect();
    format!("({})", parts.join(", "))
}

/// An angle given in radians, in degrees: `45°`, `0.01°`, `0.0001234°` (small angles keep four
/// significant digits, so a refused small rotation never reads `0°`).
pub fn degrees(radians: f64) -> String {
    let d = radians.to_degrees();
    if d.abs() < 1.0 {
        format!("{}°", value(d))
    } else {
        format!("{}°", number(d, 2))
    }
}

/// A rate per second with a sensible number of digits: `1,587/s`, `12.5/s`.
pub fn rate(per_second: f64) -> String {
    if !per_second.is_finite() || per_second < 100.0 {
        return format!("{}/s", number(per_second, 1));
    }
    let whole = per_second.round() as u64;
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out}/s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(number(0.10000000149011612, 4), "0.1");
        assert_eq!(number(-0.00001, 3), "0");
        assert_eq!(number(12.0, 3), "12");
        assert_eq!(number(1e30, 3), "1.000e30");
        assert_eq!(value(0.000123456), "0.0001235");
        assert_eq!(value(12.3456), "12.35");
        assert_eq!(value(123456.7), "123457");
        assert_eq!(value(0.0), "0");
        assert_eq!(length(0.10000000149011612), "100 mm");
        assert_eq!(length(0.00025), "0.25 mm");
        assert_eq!(length(1.23456), "1.235 m");
        assert_eq!(length(3.2154e-8), "0.00003215 mm");
        assert_eq!(
            lengths(&[0.10000000149011612, 0.0, -0.0025]),
            "(100, 0, -2.5) mm"
        );
        assert_eq!(lengths(&[1.5, 0.0, 0.0]), "(1.5, 0, 0) m");
        assert_eq!(degrees(7.853981184962973e-1), "45°");
        assert_eq!(degrees(1e-5), "0.000573°");
        assert_eq!(rate(1586.7506), "1,587/s");
        assert_eq!(rate(12.54), "12.5/s");
        assert_eq!(rate(1234567.0), "1,234,567/s");
    }
}
