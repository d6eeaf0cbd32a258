"""Compares two result folders of tools/golden/run and prints the differences grouped.

A difference whose only change is a repeated clause removed from a message (the same text said
once where it was said two or three times, split at ': ') is grouped as "clause said once",
in plain text and in JSON string values alike. Exit 0 iff nothing differs."""
import json
import os
import sys


def said_once(text):
    """The text with every run of clauses that directly repeats itself collapsed."""
    lines = []
    for line in text.split("\n"):
        parts = line.split(": ")
        changed = True
        while changed:
            changed = False
            n = len(parts)
            for k in range(1, n // 2 + 1):
                for at in range(0, n - 2 * k + 1):
                    if parts[at:at + k] == parts[at + k:at + 2 * k]:
                        parts = parts[:at + k] + parts[at + 2 * k:]
                        changed = True
                        break
                if changed:
                    break
        lines.append(": ".join(parts))
    return "\n".join(lines)


def json_said_once(value):
    if isinstance(value, str):
        return said_once(value)
    if isinstance(value, list):
        return [json_said_once(v) for v in value]
    if isinstance(value, dict):
        return {k: json_said_once(v) for k, v in value.items()}
    return value


def main(base, new):
    groups = {}
    names = sorted(os.listdir(base))
    for name in names:
        a = open(os.path.join(base, name), errors="replace").read()
        try:
            b = open(os.path.join(new, name), errors="replace").read()
        except FileNotFoundError:
            groups.setdefault("missing in the new results", []).append(name)
            continue
        if a == b:
            continue
        group = None
        if said_once(a) == b:
            group = "clause said once"
        else:
            try:
                if json_said_once(json.loads(a)) == json.loads(b):
                    group = "clause said once (JSON)"
            except ValueError:
                pass
        if group is None:
            case = name.split("_", 1)[0]
            group = f"changed: command {case}, {name.rsplit('.', 1)[-1]}"
        groups.setdefault(group, []).append(name)
    extra = sorted(set(os.listdir(new)) - set(names))
    if extra:
        groups["only in the new results"] = extra
    total = sum(len(v) for v in groups.values())
    print(f"golden: {len(names)} output files compared, {total} differ")
    for group, files in sorted(groups.items()):
        print(f"  {len(files):6} {group}: {', '.join(files[:3])}{' ...' if len(files) > 3 else ''}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
