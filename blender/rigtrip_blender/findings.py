"""What `rigtrip check` found in the files an export wrote, as `rigtrip import --json` reports
it (its `check`: the game's loader model run on what is about to be written), turned into lines
for Blender's Info area; and rigtrip's refusal of an edit the game could not load, said with the
export option that writes it anyway.

Nothing here imports `bpy`, so it can be tested with any Python.
"""

import os
import re

#: What rigtrip says to write a refused file anyway, and what the add-on calls that option.
IGNORE_FLAG = "--ignore-check writes it anyway"
IGNORE_OPTION = "turn on Ignore check to write it anyway"


#: How the add-on (and rigtrip) name a file staged beside its destination.
_STAGED = re.compile(r"^\.(.+)\.rigtrip-[^.]+\.tmp$")


def shown_name(path):
    """The file name `path` will have once in place (a staged `.NAME.rigtrip-TAG.tmp` is
    NAME)."""
    base = os.path.basename(path)
    staged = _STAGED.match(base)
    return staged.group(1) if staged else base


def finding_line(f):
    """One finding as rigtrip's text report prints it: `stops PLACE: FIELD: PROBLEM [CLASS]`."""
    place = f"{f['place']}: " if f.get("place") else ""
    return (
        f"{f.get('severity', '?'):<5} {place}{f.get('field')}: {f.get('problem')} "
        f"[{f.get('evidence')}]"
    )


def check_lines(report):
    """Lines for the Info area from the `check` of `rigtrip import --json` (`report`): per file
    written, what would stop the game (or that nothing would), then each finding."""
    lines = []
    for f in report.get("check") or []:
        findings = f.get("findings") or []
        stops = sum(1 for x in findings if x.get("severity") == "stops")
        notes = len(findings) - stops
        name = shown_name(f.get("path", ""))
        if not findings:
            known = f.get("format") not in ("hie", "efm", "-")
            said = "nothing would stop the game" if known else "no loader model is known for it"
        else:
            parts = [f"{stops} would stop the game"] if stops else []
            parts += [f"{notes} note(s)"] if notes else []
            said = ", ".join(parts)
        lines.append(f"rigtrip check: {name}: {said}")
        lines.extend("  " + finding_line(x) for x in findings)
    return lines


def refusal(message):
    """rigtrip's refusal `message`, naming the add-on's option instead of the flag."""
    return message.replace(IGNORE_FLAG, IGNORE_OPTION)
