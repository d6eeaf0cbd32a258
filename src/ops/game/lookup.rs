//! The game's lookup (EXE, the loader study): a request is cut to its base name, lower-cased,
//! and tried as `GDataX360.afs/NAME`, `GData.afs/NAME`, `Video/NAME`, `afs/sound/NAME`,
//! `SAVEDATA/NAME`, `NAME`, in that order, each first in the highest-numbered volume down to
//! 0; every archive candidate comes before any loose file. Names compare lower-cased (a
//! volume's names must be unique so; its lookup is a binary search with no tie-break).
//!
//! The loose folder is searched with the same six paths under `data\dmc3\`, in that order,
//! after every volume (our reading: the study names the folder and says a loose file never
//! overrides an archive member, not the order within it).

use std::collections::{BTreeSet, HashMap};

/// The six places a name is tried at, in the game's order.
pub const PREFIXES: [&str; 6] = [
    "GDataX360.afs/",
    "GData.afs/",
    "Video/",
    "afs/sound/",
    "SAVEDATA/",
    "",
];

/// What the game asks for when it is asked for `request`: the part after the last `/` or `\`,
/// lower-cased; `None` when nothing is left.
pub fn request_name(request: &str) -> Option<String> {
    let base = request.rsplit(['/', '\\']).next().unwrap_or("");
    (!base.is_empty()).then(|| base.to_ascii_lowercase())
}

/// Which of the six places a stored path (lower-cased) is, and the name it answers to;
/// `None` for a path the game never asks for (in a folder of its own, or a directory).
pub fn place_of(lower: &str) -> Option<(usize, &str)> {
    PREFIXES.iter().enumerate().find_map(|(i, p)| {
        let base = lower.strip_prefix(&p.to_ascii_lowercase())?;
        (!base.is_empty() && !base.contains('/')).then_some((i, base))
    })
}

/// Where files come from: a volume, or the loose folder.
#[derive(Debug, Clone)]
pub struct Source {
    /// The volume file's name, or the loose folder's path under the game folder.
    pub label: String,
    /// The volume's number; `None` for the loose folder.
    pub volume: Option<u32>,
    /// Each file's stored path (`/`-separated) and size.
    pub entries: Vec<(String, u64)>,
}

/// A candidate the lookup meets: a source and the entries (indices into its list) at one
/// path; more than one entry when names differ only in case (which one the game takes is
/// not defined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Index of the source in [`Index::sources`].
    pub source: usize,
    /// The entries of that source at the path.
    pub entries: Vec<usize>,
}

/// The sources of a game folder with each one's paths lower-cased, for the lookup.
#[derive(Debug, Clone)]
pub struct Index {
    /// The sources: volumes by number, from 0, then the loose folder if any.
    pub sources: Vec<Source>,
    by_path: Vec<HashMap<String, Vec<usize>>>,
}

impl Index {
    /// The index of `sources` (volumes in any order, at most one loose folder).
    pub fn new(mut sources: Vec<Source>) -> Index {
        sources.sort_by_key(|s| s.volume.map_or(u64::MAX, u64::from));
        let by_path = sources
            .iter()
            .map(|s| {
                let mut m: HashMap<String, Vec<usize>> = HashMap::new();
                for (i, (path, _)) in s.entries.iter().enumerate() {
                    m.entry(path.to_ascii_lowercase()).or_default().push(i);
                }
                m
            })
            .collect();
        Index { sources, by_path }
    }

    /// Every candidate for the game's request `name` (as [`request_name`] gives it), in the
    /// order the game tries them: the first is what it loads, the others it overrides.
    pub fn candidates(&self, name: &str) -> Vec<Hit> {
        let volumes: Vec<usize> = (0..self.sources.len())
            .rev()
            .filter(|&s| self.sources[s].volume.is_some())
            .collect();
        let loose: Vec<usize> = (0..self.sources.len())
            .filter(|&s| self.sources[s].volume.is_none())
            .collect();
        let mut hits = Vec::new();
        for group in [&volumes, &loose] {
            for prefix in PREFIXES {
                let path = format!("{}{name}", prefix.to_ascii_lowercase());
                for &s in group {
                    if let Some(entries) = self.by_path[s].get(&path) {
                        hits.push(Hit {
                            source: s,
                            entries: entries.clone(),
                        });
                    }
                }
            }
        }
        hits
    }

    /// Every name the game can load from these sources, sorted.
    pub fn names(&self) -> BTreeSet<String> {
        self.by_path
            .iter()
            .flat_map(|m| m.keys())
            .filter_map(|p| place_of(p).map(|(_, base)| base.to_string()))
            .collect()
    }

    /// The entries the game never asks for (a path in a folder of its own): (source, entry).
    pub fn unreachable(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (s, src) in self.sources.iter().enumerate() {
            for (e, (path, _)) in src.entries.iter().enumerate() {
                if place_of(&path.to_ascii_lowercase()).is_none() {
                    out.push((s, e));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(label: &str, volume: Option<u32>, paths: &[&str]) -> Source {
        Source {
            label: label.into(),
            volume,
            entries: paths.iter().map(|p| (p.to_string(), 1)).collect(),
        }
    }

    #[test]
    fn requests_are_cut_to_their_base_name_and_lower_cased() {
        assert_eq!(
            request_name("GData.afs/PL000.PAC").as_deref(),
            Some("pl000.pac")
        );
        assert_eq!(
            request_name("C:\\x\\Pl000.pac").as_deref(),
            Some("pl000.pac")
        );
        assert_eq!(request_name("dir/"), None);
        assert_eq!(place_of("afs/sound/a.snd"), Some((3, "a.snd")));
        assert_eq!(place_of("gdata.afs/sub/a.pac"), None);
        assert_eq!(place_of("a.pac"), Some((5, "a.pac")));
    }

    #[test]
    fn the_place_comes_before_the_volume_and_every_volume_before_the_loose_folder() {
        let index = Index::new(vec![
            source("loose", None, &["GDataX360.afs/a.pac", "GData.afs/b.pac"]),
            source("v1", Some(1), &["GData.afs/A.PAC", "GData.afs/b.pac"]),
            source("v0", Some(0), &["GDataX360.afs/a.pac", "c.pac"]),
        ]);
        let order = |name: &str| -> Vec<String> {
            index
                .candidates(name)
                .iter()
                .map(|h| index.sources[h.source].label.clone())
                .collect()
        };
        // GDataX360.afs/ in volume 0 comes before GData.afs/ in volume 1.
        assert_eq!(order("a.pac"), ["v0", "v1", "loose"]);
        assert_eq!(order("b.pac"), ["v1", "loose"]);
        assert_eq!(order("c.pac"), ["v0"]);
        assert_eq!(
            index.names().into_iter().collect::<Vec<_>>(),
            ["a.pac", "b.pac", "c.pac"]
        );
    }
}
