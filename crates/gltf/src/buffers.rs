//! Loading a document's buffers, once for every reader: from the GLB's BIN chunk, `data:` URIs
//! or files next to the `.gltf`, under a [`Policy`] that says what each reader allows (import
//! refuses paths that leave the folder, the linter reads at most `byteLength` bytes of a file,
//! gait follows `file:` URIs). Every problem goes to the [`Sink`] as a typed
//! [`BufferProblem`]; the sink words it and decides whether the loading goes on.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Component, Path};

use serde_json::{Map, Value};

use super::uri::{percent_decode, percent_decode_lossy};
use super::Buffer;
pub use crate::problem::{BufferProblem, UriProblem};
use crate::problem::{Problem, Sink};

/// Largest external file read whole under [`FileRead::Checked`] (a GLB cannot be larger).
const MAX_EXTERNAL: u64 = 1 << 32;

/// Which URI schemes name a local file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schemes {
    /// Any URI without `://` is a relative path (lint, import).
    NoRemote,
    /// `file:` and `file://` URIs are local paths; any other `:` is an unsupported scheme (gait).
    FileOnly,
}

/// How an external file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRead {
    /// At most `byteLength` bytes, whatever the file's size (lint: the file may be anything).
    AtMostDeclared,
    /// The whole file (gait).
    Whole,
    /// The whole file when its size is at least `byteLength` and at most 4 GiB (import).
    Checked,
}

/// What a reader allows when it loads buffers and follows URIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Which schemes are local files.
    pub schemes: Schemes,
    /// Malformed `%` escapes refuse the URI (else they are kept as written).
    pub strict_percent: bool,
    /// Only relative paths that stay inside the base folder are followed.
    pub stay_inside: bool,
    /// How a file is read.
    pub read: FileRead,
    /// Whitespace around a base64 payload is ignored.
    pub trim_base64: bool,
    /// Data past `byteLength` (GLB padding, a longer file) is cut off.
    pub truncate: bool,
}

impl Policy {
    /// The linter's: nothing refused that can be checked, files read up to `byteLength`.
    pub const LINT: Policy = Policy {
        schemes: Schemes::NoRemote,
        strict_percent: false,
        stay_inside: false,
        read: FileRead::AtMostDeclared,
        trim_base64: false,
        truncate: true,
    };
    /// Gait's: `file:` URIs followed, whole files read.
    pub const GAIT: Policy = Policy {
        schemes: Schemes::FileOnly,
        strict_percent: true,
        stay_inside: false,
        read: FileRead::Whole,
        trim_base64: false,
        truncate: true,
    };
    /// Import's: only files inside the glTF's folder, sizes checked before reading.
    pub const IMPORT: Policy = Policy {
        schemes: Schemes::NoRemote,
        strict_percent: true,
        stay_inside: true,
        read: FileRead::Checked,
        trim_base64: true,
        truncate: false,
    };
}

/// The bytes `uri` names: a base64 `data:` URI, or a file relative to `base_dir`. `declared`
/// bounds the read under [`FileRead::AtMostDeclared`] and [`FileRead::Checked`].
pub fn fetch(
    uri: &str,
    base_dir: Option<&Path>,
    declared: u64,
    policy: &Policy,
) -> Result<Vec<u8>, UriProblem> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, payload) = rest.split_once(',').ok_or(UriProblem::DataNoComma)?;
        if !header.ends_with(";base64") {
            return Err(UriProblem::DataNotBase64);
        }
        let payload = if policy.trim_base64 {
            payload.trim()
        } else {
            payload
        };
        return crate::b64::decode(payload.as_bytes()).map_err(UriProblem::Base64);
    }
    let path = match policy.schemes {
        Schemes::NoRemote if uri.contains("://") => return Err(UriProblem::Remote),
        Schemes::NoRemote => uri,
        Schemes::FileOnly => {
            if uri.contains(':') && !uri.starts_with("file:") {
                return Err(UriProblem::Scheme);
            }
            uri.strip_prefix("file://")
                .or_else(|| uri.strip_prefix("file:"))
                .unwrap_or(uri)
        }
    };
    let name = if policy.strict_percent {
        percent_decode(path).ok_or(UriProblem::Percent)?
    } else {
        percent_decode_lossy(path)
    };
    if policy.stay_inside
        && !Path::new(&name)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(UriProblem::Leaves(name));
    }
    let Some(dir) = base_dir else {
        return Err(UriProblem::NoBaseDir(name));
    };
    let path = dir.join(&name);
    let read = match policy.read {
        // Never read more than the buffer declares: the file may be anything.
        FileRead::AtMostDeclared => std::fs::File::open(&path).and_then(|f| {
            let mut v = Vec::new();
            f.take(declared).read_to_end(&mut v).map(|_| v)
        }),
        FileRead::Whole => std::fs::read(&path),
        FileRead::Checked => match std::fs::metadata(&path) {
            Ok(m) if m.len() > MAX_EXTERNAL || m.len() < declared => {
                return Err(UriProblem::Size(path, m.len(), declared))
            }
            Ok(_) => std::fs::read(&path),
            Err(e) => Err(e),
        },
    };
    read.map_err(|e| UriProblem::Io(name, path, e))
}

/// Loads every buffer of `root` (`bin`: the GLB's first BIN chunk), each problem reported to
/// `sink`; a buffer that cannot be had is `None` when the sink lets the loading go on.
pub fn load<'a, S: Sink>(
    root: &Map<String, Value>,
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    policy: &Policy,
    sink: &mut S,
) -> Result<Vec<Buffer<'a>>, S::Stop> {
    let list = match root.get("buffers") {
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => {
            sink.report(Problem::Buffer(0, BufferProblem::NotArray))?;
            &[]
        }
        None => &[],
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, b) in list.iter().enumerate() {
        out.push(load_one(i, b, bin, base_dir, policy, sink)?);
    }
    Ok(out)
}

fn load_one<'a, S: Sink>(
    i: usize,
    b: &Value,
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    policy: &Policy,
    sink: &mut S,
) -> Result<Buffer<'a>, S::Stop> {
    let mut fail = |p: BufferProblem| sink.report(Problem::Buffer(i, p)).map(|()| None);
    let Some(declared) = b.get("byteLength").and_then(Value::as_u64) else {
        return fail(BufferProblem::NoByteLength);
    };
    let data: Cow<'a, [u8]> = match b.get("uri") {
        None => match (i, bin) {
            (0, Some(bin)) => Cow::Borrowed(bin),
            _ => return fail(BufferProblem::NoUri),
        },
        Some(Value::String(uri)) => match fetch(uri, base_dir, declared, policy) {
            Ok(d) => Cow::Owned(d),
            Err(e) => return fail(BufferProblem::Uri(uri, e)),
        },
        Some(_) => return fail(BufferProblem::UriNotString),
    };
    if (data.len() as u64) < declared {
        let len = data.len();
        sink.report(Problem::Buffer(i, BufferProblem::Short(declared, len)))?;
        return Ok(Some(data));
    }
    if !policy.truncate {
        return Ok(Some(data));
    }
    // `declared` is at most the length, so it fits in usize.
    let end = declared as usize;
    Ok(Some(match data {
        Cow::Borrowed(d) => Cow::Borrowed(d.get(..end).unwrap_or(d)),
        Cow::Owned(mut d) => {
            d.truncate(end);
            Cow::Owned(d)
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::First;
    use serde_json::json;

    fn root(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    /// The problem's variant and buffer, as text.
    fn first(r: Map<String, Value>, dir: Option<&Path>, policy: &Policy) -> String {
        let mut sink = First(|p: Problem| format!("{p:?}"));
        match load(&r, Some(&[1, 2, 3, 4, 5][..]), dir, policy, &mut sink) {
            Ok(b) => format!("ok {:?}", b),
            Err(e) => e,
        }
    }

    #[test]
    fn policies_differ_where_the_readers_do() {
        let dir = std::env::temp_dir().join(format!("rigtrip-buffers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a b.bin"), [9u8; 8]).unwrap();
        let one = |uri: &str, len: u64| root(json!({"buffers": [{"uri": uri, "byteLength": len}]}));
        // Lint reads at most byteLength of a file; gait reads it whole and cuts it.
        assert_eq!(
            first(one("a%20b.bin", 3), Some(&dir), &Policy::LINT),
            "ok [Some([9, 9, 9])]"
        );
        assert_eq!(
            first(one("file:a%20b.bin", 3), Some(&dir), &Policy::GAIT),
            "ok [Some([9, 9, 9])]"
        );
        // Import keeps what is past byteLength, and refuses to leave the folder.
        assert_eq!(
            first(one("a%20b.bin", 3), Some(&dir), &Policy::IMPORT),
            "ok [Some([9, 9, 9, 9, 9, 9, 9, 9])]"
        );
        assert!(
            first(one("../a.bin", 3), Some(&dir), &Policy::IMPORT).contains("Leaves(\"../a.bin\")")
        );
        assert!(
            first(one("file:a.bin", 3), Some(&dir), &Policy::IMPORT).contains("Io(\"file:a.bin\"")
        );
        assert!(first(one("http://x/a.bin", 3), Some(&dir), &Policy::LINT).contains("Remote"));
        assert!(first(one("c:a.bin", 3), Some(&dir), &Policy::GAIT).contains("Scheme"));
        assert!(first(one("a%zz", 3), Some(&dir), &Policy::GAIT).contains("Percent"));
        assert!(first(one("a b.bin", 9), Some(&dir), &Policy::IMPORT).contains("Size("));
        assert!(first(one("a b.bin", 3), None, &Policy::LINT).contains("NoBaseDir(\"a b.bin\")"));
        // Base64 payloads: trimmed for import only.
        assert_eq!(
            first(one("data:x;base64, AQI= ", 2), None, &Policy::IMPORT),
            "ok [Some([1, 2])]"
        );
        assert!(first(one("data:x;base64, AQI= ", 2), None, &Policy::LINT).contains("Base64("));
        assert!(first(one("data:x,AQI=", 2), None, &Policy::LINT).contains("DataNotBase64"));
        assert!(first(one("data:AQI=", 2), None, &Policy::LINT).contains("DataNoComma"));
        // The BIN chunk is buffer 0 only, borrowed and cut to byteLength; short data is reported.
        let bin = root(json!({"buffers": [{"byteLength": 4}, {"byteLength": 1}]}));
        assert!(first(bin, None, &Policy::LINT).contains("Buffer(1, NoUri)"));
        let short = root(json!({"buffers": [{"byteLength": 6}]}));
        assert_eq!(first(short, None, &Policy::GAIT), "Buffer(0, Short(6, 5))");
        let bad = root(json!({"buffers": {}}));
        assert_eq!(first(bad, None, &Policy::LINT), "Buffer(0, NotArray)");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
