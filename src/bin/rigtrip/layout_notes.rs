//! `verify`'s note lines for the layout leg: nothing for a file in the retail layout, a note with
//! the first difference for one that is not, and with `-v` why a file has no such layout.

use std::io::Write;

use rigtrip::ops::verify::LayoutLeg;

/// Writes the notes of one file's layout leg under its line.
pub fn print(out: &mut impl Write, leg: &LayoutLeg, verbose: bool) -> std::io::Result<()> {
    match leg {
        LayoutLeg::Identical | LayoutLeg::NotRun => Ok(()),
        LayoutLeg::NotRetail(d) => writeln!(out, "           note: layout: {d}"),
        LayoutLeg::NotApplicable(why) if verbose => {
            writeln!(out, "           note: layout leg not applicable: {why}")
        }
        LayoutLeg::NotApplicable(_) => Ok(()),
        LayoutLeg::Members(members) => {
            for m in members {
                if let LayoutLeg::NotRetail(d) = &m.layout {
                    writeln!(
                        out,
                        "           note: layout: member at {:#x} (slot(s) {:?}, {}): {d}",
                        m.offset, m.slots, m.format
                    )?;
                }
            }
            Ok(())
        }
    }
}
