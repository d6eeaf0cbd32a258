//! The report as text: slot table, constants (with the intended column when asked), timeline.

use std::fmt::Write as _;

use super::constant::ConstantStatus;
use super::{GaitReport, SlotStatus};

fn num(v: Option<f64>) -> String {
    match v {
        Some(x) => format!("{x:.4}"),
        None => "-".into(),
    }
}

fn status_word(s: ConstantStatus) -> &'static str {
    match s {
        ConstantStatus::Measured => "",
        ConstantStatus::Missing => "MISSING",
        ConstantStatus::Unknown => "unknown",
        ConstantStatus::NotLoaded => "not loaded",
        ConstantStatus::Degenerate => "degenerate",
    }
}

/// Renders `r` for a terminal.
pub(crate) fn text(r: &GaitReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "prefix '{}' ({}), forward {}, root joint {}",
        r.prefix,
        match r.prefix_source {
            super::PrefixSource::Given => "given",
            super::PrefixSource::Detected => "detected",
        },
        r.forward.label(),
        match &r.root_joint {
            Some(j) => format!(
                "node {} '{}' ({})",
                j.node,
                j.name.as_deref().unwrap_or(""),
                j.how
            ),
            None => "none".into(),
        }
    );
    slots(&mut o, r);
    let _ = writeln!(
        o,
        "\nlimp set: {} (probe '{}'); bump slot 0x{:02x}: {}",
        if r.limp_set.present {
            "present"
        } else {
            "absent"
        },
        r.limp_set.probe,
        r.bump.slot,
        r.bump.animation.as_deref().unwrap_or("MISSING")
    );
    if !r.missing.is_empty() {
        let names: Vec<&str> = r.missing.iter().map(|m| m.name.as_str()).collect();
        let _ = writeln!(
            o,
            "missing: {} (the original crashes on load; the reconstruction keeps defaults)",
            names.join(", ")
        );
    }
    for u in &r.unmatched {
        let _ = writeln!(
            o,
            "unmatched: animation {} '{}': {}",
            u.animation, u.name, u.reason
        );
    }
    constants(&mut o, &r.constants);
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    if let Some(sim) = &r.simulation {
        timeline(&mut o, sim);
    }
    o
}

/// The slot table: one line per slot this loader fills.
fn slots(o: &mut String, r: &GaitReport) {
    let _ = writeln!(o, "\nslots (0x{:02x}):", r.slot_count);
    let _ = writeln!(
        o,
        "  slot code hand  meaning                         animation        d        s        cap      status"
    );
    for s in &r.slots {
        if s.status == SlotStatus::NotFilled {
            continue;
        }
        let clip = s.clip.as_ref();
        let _ = writeln!(
            o,
            "  0x{:02x} {:4} {:4}  {:31} {:16} {:8} {:8} {:8} {}{}",
            s.slot,
            s.code.unwrap_or(""),
            s.hand.map(|h| h.letter().to_string()).unwrap_or_default(),
            s.meaning,
            clip.map(|c| c.name.as_str()).unwrap_or("-"),
            num(clip.and_then(|c| c.duration)),
            num(clip.and_then(|c| c.stride)),
            num(clip.and_then(|c| c.speed_cap)),
            match s.status {
                SlotStatus::Filled => "filled",
                SlotStatus::Missing => "MISSING (the game would crash on load)",
                SlotStatus::NotLoaded => "not loaded (no limp set)",
                SlotStatus::NotFilled => "",
            },
            clip.map(|c| {
                if c.problems.is_empty() {
                    String::new()
                } else {
                    format!("; {}", c.problems.join("; "))
                }
            })
            .unwrap_or_default()
        );
    }
    let _ = writeln!(
        o,
        "  (slots 0x00-0x04 and 0x1c-0x1f are not filled by this loader)"
    );
}

/// The constants, each with what holds it and its detail (and the intended column when asked).
fn constants(o: &mut String, constants: &[super::constant::Constant]) {
    let _ = writeln!(o, "\nconstants:");
    for c in constants {
        let quirks: Vec<&str> = c.quirks.iter().map(|q| q.code).collect();
        let mut line = format!(
            "  {:22} {:>12} {:10} = {:30}",
            c.name,
            num(c.value),
            status_word(c.status),
            c.formula
        );
        if let Some(i) = &c.intended {
            let _ = write!(
                line,
                " | intended {:>12} = {}{}",
                num(i.value),
                i.formula,
                if i.differs { "  (differs)" } else { "" }
            );
        }
        if !quirks.is_empty() {
            let _ = write!(line, "  [{}]", quirks.join(", "));
        }
        let _ = writeln!(o, "{}", line.trim_end());
        let _ = writeln!(o, "  {:22} {}", "", c.holds);
        if let Some(d) = &c.detail {
            let _ = writeln!(o, "  {:22} {}", "", d);
        }
    }
}

/// The simulated timeline: the demand, then one line per segment, then the machine's notes.
fn timeline(o: &mut String, sim: &super::machine::Simulation) {
    let pts: Vec<String> = sim
        .demand
        .iter()
        .map(|p| format!("{}:{}", p[0], p[1]))
        .collect();
    let _ = writeln!(o, "\ntimeline (demand {}):", pts.join(","));
    if let Some(why) = &sim.refused {
        let _ = writeln!(o, "  not simulated: {why}");
    }
    let _ = writeln!(o, "  start     clip  hand  rate    cycle    demand   why");
    for s in &sim.timeline {
        let _ = writeln!(
            o,
            "  {:8.3}  {:5} {:4}  {:6.3}  {:7.3}  {:7.3}  {}",
            s.start,
            s.clip.unwrap_or("stand"),
            s.hand.map(|h| h.letter().to_string()).unwrap_or_default(),
            s.rate,
            s.cycle,
            s.demand,
            s.why
        );
    }
    for n in &sim.notes {
        let _ = writeln!(o, "  note: {n}");
    }
}
