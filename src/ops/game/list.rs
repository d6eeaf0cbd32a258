//! `rigtrip game list` and `extract`: every file the game would load, where from and what it
//! overrides; and the bytes it would load for a name.

use std::fmt::Write as _;

use serde::Serialize;

use super::{request_name, Game, GameError, Located};

/// One volume as `list` reports it.
#[derive(Debug, Clone, Serialize)]
pub struct VolumeInfo {
    /// Its number.
    pub number: u32,
    /// Its file name.
    pub file: String,
    /// How many files it holds.
    pub entries: usize,
    /// Whether rigtrip wrote it (its mark in the ZIP comment).
    pub rigtrip: bool,
    /// Why it cannot be read, when it cannot (it then counts as holding nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damaged: Option<String>,
}

/// One file the game would load.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// The name the game asks for (lower-cased base name).
    pub name: String,
    /// Where the game takes it from.
    pub from: Located,
    /// The other copies the lookup meets after it, in its order: what `from` overrides.
    pub overrides: Vec<Located>,
    /// Other entries of the same volume at the same path in another case: the game may take
    /// any of them (empty when the name is unique, as it must be).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ambiguous: Vec<Located>,
}

/// What `rigtrip game list` reports.
#[derive(Debug, Clone, Serialize)]
pub struct ListReport {
    /// The volumes the game mounts, by number.
    pub volumes: Vec<VolumeInfo>,
    /// Numbered volume files the game never opens (after the first missing number).
    pub beyond_gap: Vec<String>,
    /// The loose folder, when there is one.
    pub loose: Option<String>,
    /// The files (those the filters match), sorted by name.
    pub files: Vec<Listed>,
    /// Entries the game never asks for (in a folder of their own).
    pub unreachable: Vec<Located>,
    /// What keeps the listing from being certain: damaged volumes, names held twice.
    pub problems: Vec<String>,
}

impl ListReport {
    /// 0 when the listing is certain, 1 when a problem makes part of it uncertain.
    pub fn exit_code(&self) -> i32 {
        i32::from(!self.problems.is_empty())
    }
}

/// Whether `name` matches `filter`: a glob (`*`, `?`) on the whole name, else a part of it;
/// case-insensitive.
pub fn matches(filter: &str, name: &str) -> bool {
    let f = filter.to_ascii_lowercase();
    let n = name.to_ascii_lowercase();
    if f.contains(['*', '?']) {
        glob(f.as_bytes(), n.as_bytes())
    } else {
        n.contains(&f)
    }
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    // Iterative wildcard match with one backtrack point (linear for `*` runs).
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < s.len() {
        match p.get(i) {
            Some(b'*') => {
                star = Some(i);
                mark = j;
                i += 1;
            }
            Some(&c) if c == b'?' || c == s[j] => {
                i += 1;
                j += 1;
            }
            _ => match star {
                Some(st) => {
                    i = st + 1;
                    mark += 1;
                    j = mark;
                }
                None => return false,
            },
        }
    }
    p[i.min(p.len())..].iter().all(|&c| c == b'*')
}

/// Every file the game would load whose name matches one of `filters` (all with none).
pub fn list(game: &Game, filters: &[String]) -> ListReport {
    let keep = |name: &str| filters.is_empty() || filters.iter().any(|f| matches(f, name));
    let mut problems = Vec::new();
    let volumes = game
        .volumes
        .iter()
        .map(|v| {
            if let Some(why) = &v.damaged {
                problems.push(format!(
                    "{} is damaged ({why}): the game cannot read it, and what it would load \
                     from it cannot be told",
                    v.file.file
                ));
            }
            VolumeInfo {
                number: v.file.number,
                file: v.file.file.clone(),
                entries: v.entries.len(),
                rigtrip: v.ours,
                damaged: v.damaged.clone(),
            }
        })
        .collect();
    let mut files = Vec::new();
    for name in game.index.names() {
        if !keep(&name) {
            continue;
        }
        let hits = game.index.candidates(&name);
        let Some((first, rest)) = hits.split_first() else {
            continue;
        };
        let ambiguous: Vec<Located> = first
            .entries
            .iter()
            .skip(1)
            .map(|&e| game.located_entry(first.source, e))
            .collect();
        let from = game.located(first);
        if !ambiguous.is_empty() {
            problems.push(format!(
                "{} holds {name} {} times in different cases: the game may take any of them",
                from.source,
                ambiguous.len() + 1
            ));
        }
        files.push(Listed {
            name,
            from,
            overrides: rest.iter().map(|h| game.located(h)).collect(),
            ambiguous,
        });
    }
    let unreachable = game
        .index
        .unreachable()
        .into_iter()
        .map(|(s, e)| game.located_entry(s, e))
        .filter(|l| keep(l.entry.rsplit('/').next().unwrap_or("")))
        .collect();
    ListReport {
        volumes,
        beyond_gap: game
            .folder
            .beyond_gap
            .iter()
            .map(|v| v.file.clone())
            .collect(),
        loose: game.folder.loose.as_ref().map(|_| "data/dmc3".to_string()),
        files,
        unreachable,
        problems,
    }
}

/// How a located file is written in a report: `DMC3-1.nbz:GData.afs/pl000.pac`.
pub fn place(l: &Located) -> String {
    format!("{}:{}", l.source, l.entry)
}

/// The listing for people: the volumes, then one line per file (where from, what it
/// overrides), then what is not loaded and the problems.
pub fn render_text(r: &ListReport) -> String {
    let mut s = String::new();
    for v in &r.volumes {
        let whose = match (&v.damaged, v.rigtrip) {
            (Some(why), _) => format!("  DAMAGED: {why}"),
            (None, true) => "  (rigtrip's)".into(),
            (None, false) => String::new(),
        };
        let _ = writeln!(
            s,
            "volume {:<3} {:<14} {:>6} files{whose}",
            v.number, v.file, v.entries
        );
    }
    for f in &r.beyond_gap {
        let _ = writeln!(s, "not loaded: {f} (a number is missing before it)");
    }
    if let Some(l) = &r.loose {
        let _ = writeln!(s, "loose folder {l} (after every volume)");
    }
    for f in &r.files {
        let _ = write!(s, "{:<24} {}", f.name, place(&f.from));
        if !f.overrides.is_empty() {
            let over: Vec<String> = f.overrides.iter().map(place).collect();
            let _ = write!(s, "  overrides {}", over.join(", "));
        }
        s.push('\n');
    }
    for u in &r.unreachable {
        let _ = writeln!(
            s,
            "never loaded: {} (the game asks only for flat names)",
            place(u)
        );
    }
    for p in &r.problems {
        let _ = writeln!(s, "problem: {p}");
    }
    let _ = writeln!(s, "{} file(s)", r.files.len());
    s
}

/// One file `extract` took from the game.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The name the game asks for.
    pub name: String,
    /// Where it comes from.
    pub from: Located,
    /// Its bytes, as the game loads them.
    pub bytes: Vec<u8>,
}

/// The bytes the game would load for each of `requests`.
pub fn extract(game: &Game, requests: &[String]) -> Result<Vec<Extracted>, GameError> {
    requests
        .iter()
        .map(|r| {
            let hit = game.resolve(r)?;
            let bytes = game.read(&hit)?;
            Ok(Extracted {
                name: request_name(r).unwrap_or_default(),
                from: game.located(&hit),
                bytes,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_globs_or_parts_of_a_name_in_any_case() {
        assert!(matches("PL000", "pl000_00_0.pac"));
        assert!(matches("pl0*.pac", "pl000.pac"));
        assert!(!matches("pl0*.pac", "pl000.mot"));
        assert!(matches("*", "x"));
        assert!(matches("em0??.pac", "em028.pac"));
        assert!(!matches("em0??.pac", "em0280.pac"));
        assert!(matches("*a*b*", "xxaxxbxx"));
        assert!(!matches("*a*b", "xxaxxbxx"));
    }
}
