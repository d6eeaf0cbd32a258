//! The JSON Schema of `rigtrip dump` (`schema/dump.schema.json`) and of rigtrip's record
//! payloads in the glTF extras: the file structure written here, every fixed record's fragment
//! (fields, evidence classes, meanings) taken from its declaration.

use serde_json::{json, Map, Value};

use crate::native::dmc3::motion::{
    KeyF32, KeyF32Hermite, KeyU16, KeyU16Hermite, MotHeader, TangentRanges, TrackHead,
};
use crate::native::dmc3::texture::{DdsHeader, Descriptor};
use crate::native::dmc3::{
    BlockHeader, BlockRels, Header, MeshRecord, ModStreams, NodeTransform, ObjectRecord, ScmStreams,
};
use crate::native::hie::Part;
use crate::native::record::Record;

/// The dump's JSON Schema, as committed in `schema/dump.schema.json`: the file structure is
/// written here, every fixed record's fragment (fields, evidence classes, meanings) comes from
/// its declaration.
pub fn schema() -> Value {
    let mut s = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rigtrip.invalid/schema/dump.schema.json",
        "title": "rigtrip native dump, version 1",
        "description": "`rigtrip dump` output: the whole native structure of a file, every byte represented, so that `rigtrip build` writes the exact bytes back. u32/u64 values and f32 bit patterns are 0x-hex strings (any case, leading zeros optional), fixed-size byte fields hex, gaps and vertex streams base64 of their exact little-endian bytes. Offsets are absolute file offsets unless a description says otherwise. Each field's description gives its evidence class (docs/formats.md lists the classes).",
        "type": "object",
        "required": [
            "rigtrip_dump",
            "format",
            "file"
        ],
        "additionalProperties": false,
        "properties": {
            "rigtrip_dump": {
                "description": "Version of this layout.",
                "const": 1
            },
            "format": {
                "enum": [
                    "hie",
                    "mod",
                    "scm",
                    "block",
                    "mot",
                    "pac",
                    "ptx",
                    "tm2"
                ]
            },
            "offset": {
                "description": "block: absolute offset of the node-domain block; equals file.block.offset.",
                "$ref": "#/$defs/hex64"
            },
            "nodes": {
                "description": "block: node count; equals the number of file.block.transforms.",
                "$ref": "#/$defs/index"
            },
            "file": {
                "type": "object"
            }
        },
        "allOf": [
            whole_file("hie", "hieFile"),
            whole_file("mod", "modFile"),
            whole_file("scm", "scmFile"),
            whole_file("mot", "motFile"),
            whole_file("pac", "pacFile"),
            whole_file("ptx", "ptxFile"),
            whole_file("tm2", "textureEntry"),
            {
                "if": {
                    "properties": {
                        "format": {
                            "const": "block"
                        }
                    }
                },
                "then": {
                    "required": [
                        "offset",
                        "nodes"
                    ],
                    "properties": {
                        "file": {
                            "$ref": "#/$defs/blockFile"
                        }
                    }
                }
            }
        ]
    });
    let mut defs = Map::new();
    common_defs(&mut defs);
    gap_defs(&mut defs);
    hie_defs(&mut defs);
    container_defs(&mut defs);
    dmc3_file_defs(&mut defs);
    dmc3_part_defs(&mut defs);
    block_def(&mut defs);
    motion_defs(&mut defs);
    record_defs(&mut defs);
    if let Value::Object(m) = &mut s {
        m.insert("$defs".into(), Value::Object(defs));
    }
    s
}

/// The condition of a whole-file format: its `file` is `def`, and it has no block offset or
/// node count.
fn whole_file(format: &str, def: &str) -> Value {
    json!({
        "if": {
            "properties": {
                "format": {
                    "const": format
                }
            }
        },
        "then": {
            "properties": {
                "file": {
                    "$ref": format!("#/$defs/{def}")
                }
            },
            "not": {
                "anyOf": [
                    {
                        "required": [
                            "offset"
                        ]
                    },
                    {
                        "required": [
                            "nodes"
                        ]
                    }
                ]
            }
        }
    })
}

/// The dump schema's shared definitions: hex and base64 forms, integers.
fn common_defs(defs: &mut Map<String, Value>) {
    defs.insert(
        "hex32".into(),
        json!({
            "type": "string",
            "pattern": "^0x[0-9a-fA-F]{1,8}$"
        }),
    );
    defs.insert(
        "hex64".into(),
        json!({
            "type": "string",
            "pattern": "^0x[0-9a-fA-F]{1,16}$"
        }),
    );
    defs.insert(
        "hexbytes".into(),
        json!({
            "type": "string",
            "pattern": "^([0-9a-fA-F]{2})*$"
        }),
    );
    for n in [4, 8, 12, 16, 24, 28] {
        defs.insert(
            format!("hex{n}"),
            json!({
                "type": "string",
                "pattern": format!("^([0-9a-fA-F]{{2}}){{{n}}}$")
            }),
        );
    }
    defs.insert(
        "base64".into(),
        json!({
            "type": "string",
            "pattern": "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
        }),
    );
    defs.insert(
        "emptyStream".into(),
        json!({
            "description": "A stream this container kind does not have.",
            "const": ""
        }),
    );
    defs.insert(
        "index".into(),
        json!({
            "type": "integer",
            "minimum": 0
        }),
    );
    defs.insert(
        "i8".into(),
        json!({
            "type": "integer",
            "minimum": -128,
            "maximum": 127
        }),
    );
    defs.insert(
        "u8".into(),
        json!({
            "type": "integer",
            "minimum": 0,
            "maximum": 255
        }),
    );
    defs.insert(
        "u16".into(),
        json!({
            "type": "integer",
            "minimum": 0,
            "maximum": 65535
        }),
    );
    defs.insert(
        "i32".into(),
        json!({
            "type": "integer",
            "minimum": -2147483648,
            "maximum": 2147483647
        }),
    );
}

/// The dump schema of gaps: bytes no structure accounts for, kept exactly.
fn gap_defs(defs: &mut Map<String, Value>) {
    defs.insert("gap".into(), json!({
    "description": "Bytes no decoded structure covers (PRESERVED_UNDECODED), kept where they were.",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "offset",
        "bytes"
    ],
    "properties": {
        "offset": {
            "$ref": "#/$defs/hex64"
        },
        "bytes": {
            "$ref": "#/$defs/base64"
        }
    }
}));
    defs.insert(
        "gaps".into(),
        json!({
            "type": "array",
            "items": {
                "$ref": "#/$defs/gap"
            }
        }),
    );
}

/// The dump schema of DBnnHIE.BIN.
fn hie_defs(defs: &mut Map<String, Value>) {
    defs.insert("hieFile".into(), json!({
    "description": "DBnnHIE.BIN (docs/formats.md).",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "slots",
        "hierarchies",
        "gaps"
    ],
    "properties": {
        "slots": {
            "description": "The 256-entry offset table (STRUCTURAL_CONFIRMED): per slot the index of its hierarchy in `hierarchies`, null for offset 0. The offsets themselves are where the hierarchies are placed.",
            "type": "array",
            "minItems": 256,
            "maxItems": 256,
            "items": {
                "anyOf": [
                    {
                        "type": "null"
                    },
                    {
                        "$ref": "#/$defs/index"
                    }
                ]
            }
        },
        "hierarchies": {
            "description": "In file-offset order; one that several slots point at appears once.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/hierarchy"
            }
        },
        "gaps": {
            "description": "Bytes between and after the hierarchies.",
            "$ref": "#/$defs/gaps"
        }
    }
}));
    defs.insert("hierarchy".into(), json!({
    "type": "object",
    "additionalProperties": false,
    "required": [
        "offset",
        "span",
        "byte_lists",
        "parts"
    ],
    "properties": {
        "offset": {
            "description": "File offset; kept while the hierarchy fits in `span`.",
            "$ref": "#/$defs/hex32"
        },
        "span": {
            "description": "Bytes it occupied when read (0 for a new one: placed at the end).",
            "$ref": "#/$defs/hex32"
        },
        "byte_lists": {
            "description": "+0x02, the 0x32-byte area of 0xFF-ended lists (STRUCTURAL_CONFIRMED, 'part groups'); each list without its terminator, then the bytes after the last one (PRESERVED_UNDECODED).",
            "type": "object",
            "additionalProperties": false,
            "required": [
                "lists",
                "tail"
            ],
            "properties": {
                "lists": {
                    "type": "array",
                    "maxItems": 50,
                    "items": {
                        "$ref": "#/$defs/hexbytes"
                    }
                },
                "tail": {
                    "$ref": "#/$defs/hexbytes"
                }
            }
        },
        "parts": {
            "description": "+0x34, 0x28 bytes each, depth-first; the s16 count at +0x00 is their number.",
            "type": "array",
            "maxItems": 32767,
            "items": {
                "$ref": "#/$defs/part"
            }
        }
    }
}));
}

/// The dump schema of whole DMC3 container files: MOD, SCM, a bare block.
fn container_defs(defs: &mut Map<String, Value>) {
    // A container file: the DMC3 structure with that magic and that kind's meshes.
    for (name, magic, mesh) in [("modFile", "Mod", "modMesh"), ("scmFile", "Scm", "scmMesh")] {
        defs.insert(
            name.into(),
            json!({
                "allOf": [
                    {
                        "$ref": "#/$defs/dmc3File"
                    }
                ],
                "required": [
                    "container"
                ],
                "properties": {
                    "container": {
                        "type": "object",
                        "properties": {
                            "header": {
                                "properties": {
                                    "magic": {
                                        "const": magic
                                    }
                                }
                            },
                            "objects": {
                                "items": {
                                    "properties": {
                                        "meshes": {
                                            "items": {
                                                "$ref": format!("#/$defs/{mesh}")
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }),
        );
    }
    defs.insert("blockFile".into(), json!({
    "description": "A node-domain block at some offset of a file whose container is not known (EFM and others); every other byte is a gap.",
    "allOf": [
        {
            "$ref": "#/$defs/dmc3File"
        }
    ],
    "required": [
        "block"
    ],
    "properties": {
        "container": {
            "description": "Absent: the container is not known.",
            "type": "null"
        },
        "block": {
            "type": "object"
        }
    }
}));
}

/// The dump schema of DMC3 meshes by container kind, and of a DMC3 file of any kind.
fn dmc3_file_defs(defs: &mut Map<String, Value>) {
    // A mesh of one container kind: its record's variant, and the streams that kind lacks.
    for (name, variant, absent) in [
        ("modMesh", "Mod", &["colours"][..]),
        ("scmMesh", "Scm", &["bone_indices", "weights"][..]),
    ] {
        let mut properties = json!({
            "record": {
                "properties": {
                    "variant": {
                        "required": [
                            variant
                        ]
                    }
                }
            }
        });
        for stream in absent {
            properties[*stream] = json!({
                "$ref": "#/$defs/emptyStream"
            });
        }
        defs.insert(name.into(), json!({ "properties": properties }));
    }
    defs.insert("dmc3File".into(), json!({
    "type": "object",
    "additionalProperties": false,
    "required": [
        "gaps"
    ],
    "properties": {
        "container": {
            "description": "Left out (or null) when the file has no known container.",
            "anyOf": [
                {
                    "type": "null"
                },
                {
                    "$ref": "#/$defs/container"
                }
            ]
        },
        "block": {
            "description": "Left out (or null) when the file has no node-domain block.",
            "anyOf": [
                {
                    "type": "null"
                },
                {
                    "$ref": "#/$defs/block"
                }
            ]
        },
        "gaps": {
            "description": "Every byte outside the container's structures and the block, absolute offsets.",
            "$ref": "#/$defs/gaps"
        }
    }
}));
}

/// The dump schema of the parts of a DMC3 container: the container, its objects and meshes.
fn dmc3_part_defs(defs: &mut Map<String, Value>) {
    defs.insert(
        "container".into(),
        json!({
            "description": "DMC3 MOD/SCM container (docs/formats.md, COMMUNITY unless stated).",
            "type": "object",
            "additionalProperties": false,
            "required": [
                "header",
                "objects"
            ],
            "properties": {
                "header": {
                    "$ref": "#/$defs/containerHeader"
                },
                "objects": {
                    "type": "array",
                    "maxItems": 255,
                    "items": {
                        "$ref": "#/$defs/object"
                    }
                }
            }
        }),
    );
    defs.insert(
        "object".into(),
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": [
                "record",
                "meshes"
            ],
            "properties": {
                "record": {
                    "$ref": "#/$defs/objectRecord"
                },
                "meshes": {
                    "type": "array",
                    "maxItems": 255,
                    "items": {
                        "$ref": "#/$defs/mesh"
                    }
                }
            }
        }),
    );
    defs.insert("mesh".into(), json!({
    "description": "A mesh record, its streams (vertex_count entries each, base64 of the bytes on disk) and its index workspace.",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "record",
        "positions",
        "normals",
        "uvs",
        "bone_indices",
        "weights",
        "colours"
    ],
    "properties": {
        "record": {
            "$ref": "#/$defs/meshRecord"
        },
        "positions": {
            "description": "COMMUNITY: f32x3 per vertex.",
            "$ref": "#/$defs/base64"
        },
        "normals": {
            "description": "COMMUNITY: f32x3 per vertex.",
            "$ref": "#/$defs/base64"
        },
        "uvs": {
            "description": "COMMUNITY: s16x2 per vertex, value/4096.",
            "$ref": "#/$defs/base64"
        },
        "bone_indices": {
            "description": "MOD, COMMUNITY: u8x4 per vertex, bytes 1..3 joint x 4.",
            "$ref": "#/$defs/base64"
        },
        "weights": {
            "description": "MOD, COMMUNITY: u16 per vertex, three 5-bit weights and the strip flag (bit 15).",
            "$ref": "#/$defs/base64"
        },
        "colours": {
            "description": "SCM, COMMUNITY: u8x4 per vertex, RGB and a flag byte (bit 1: strip flag).",
            "$ref": "#/$defs/base64"
        },
        "workspace": {
            "description": "EXE_CONFIRMED: the index workspace where the record's +0x40 (relative to the record) points, align16(6 * (vertex_count - 2)) bytes the game writes the mesh's triangle indices into at load: \"fill\" when it holds the game's fill (0x12, the file's last two bytes zero), {\"bytes\": base64} otherwise, \"absent\" when +0x40 points at no free room of that size (those bytes are then gaps). Left out: absent.",
            "oneOf": [
                {
                    "enum": ["absent", "fill"]
                },
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["bytes"],
                    "properties": {
                        "bytes": {
                            "$ref": "#/$defs/base64"
                        }
                    }
                }
            ]
        }
    }
}));
}

/// The dump schema of the node-domain block (its header fields from their declaration).
fn block_def(defs: &mut Map<String, Value>) {
    let [rels, unknown_10] = [0, 1].map(|k| BlockHeader::FIELDS[k].schema_with_description());
    defs.insert("block".into(), json!({
    "description": "DMC3 node-domain block (docs/formats.md).",
    "type": "object",
    "additionalProperties": false,
    "required": [
        "offset",
        "rels",
        "unknown_10",
        "parents",
        "order",
        "groups",
        "transforms",
        "padding"
    ],
    "properties": {
        "offset": {
            "description": "Absolute offset of the block header.",
            "$ref": "#/$defs/hex64"
        },
        "rels": rels,
        "unknown_10": unknown_10,
        "parents": {
            "description": "EXE_CONFIRMED: parent node index by order position, -1 for the root.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/i8"
            }
        },
        "order": {
            "description": "EXE_CONFIRMED: node at each order position.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/u8"
            }
        },
        "groups": {
            "description": "STRUCTURAL_CONFIRMED, meaning unknown: preserved.",
            "type": "array",
            "items": {
                "$ref": "#/$defs/u8"
            }
        },
        "transforms": {
            "description": "One 0x20-byte record per node, indexed by node; f32 bit patterns.",
            "type": "array",
            "maxItems": 255,
            "items": {
                "$ref": "#/$defs/transform"
            }
        },
        "padding": {
            "description": "Bytes of the block's extent no array covers; offsets RELATIVE to the block start.",
            "$ref": "#/$defs/gaps"
        }
    }
}));
}

/// The dump schema of the fixed records, from their declarations.
fn record_defs(defs: &mut Map<String, Value>) {
    for (name, schema) in record_schemas() {
        defs.insert(name.into(), schema);
    }
}

/// The fixed records of the model and hierarchy formats, each with its schema from its
/// declaration: the dump's and the glTF extras' (see [`extras_record_defs`]) one source.
fn record_schemas() -> [(&'static str, Value); 8] {
    let described = |mut v: Value, text: &str| {
        if let Value::Object(m) = &mut v {
            m.insert("description".into(), Value::from(text));
        }
        v
    };
    [
        (Header::SCHEMA_NAME, Header::schema()),
        (
            ObjectRecord::SCHEMA_NAME,
            described(
                ObjectRecord::schema(),
                "0x40 bytes at 0x40 + 0x40 * object index.",
            ),
        ),
        (
            MeshRecord::SCHEMA_NAME,
            described(
                MeshRecord::schema(),
                "0x50 bytes, mesh_count of them in a row at the object's mesh_offset.",
            ),
        ),
        (ModStreams::SCHEMA_NAME, ModStreams::schema()),
        (ScmStreams::SCHEMA_NAME, ScmStreams::schema()),
        (BlockRels::SCHEMA_NAME, BlockRels::schema()),
        (NodeTransform::SCHEMA_NAME, NodeTransform::schema()),
        (Part::SCHEMA_NAME, Part::schema()),
    ]
}

/// The records whose dump form is also their form in the glTF extras (the container's header,
/// object and mesh records with their streams, the block's rels, the joint transform), for
/// `schema/rigtrip-extras.schema.json`, which refers to them instead of describing them again
/// (`tests/extras_schema.rs` holds the file to them).
pub fn extras_record_defs() -> Map<String, Value> {
    const IN_EXTRAS: [&str; 7] = [
        Header::SCHEMA_NAME,
        ObjectRecord::SCHEMA_NAME,
        MeshRecord::SCHEMA_NAME,
        ModStreams::SCHEMA_NAME,
        ScmStreams::SCHEMA_NAME,
        BlockRels::SCHEMA_NAME,
        NodeTransform::SCHEMA_NAME,
    ];
    record_schemas()
        .into_iter()
        .filter(|(name, _)| IN_EXTRAS.contains(name))
        .map(|(name, schema)| (name.to_string(), schema))
        .collect()
}

/// The dump schema of motions and archives (docs/formats.md: motions and archives).
fn motion_defs(defs: &mut Map<String, Value>) {
    defs.insert("motFile".into(), json!({
        "description": "A DMC3 motion (docs/formats.md). node_count equals the number of masks, header_size 0x1E + 2 * masks + headerTail bytes, trackCount the number of set mask bits and of tracks.",
        "type": "object",
        "additionalProperties": false,
        "required": ["header", "masks", "headerTail", "trackCount", "tracks", "tail"],
        "properties": {
            "header": { "$ref": "#/$defs/motHeader" },
            "masks": {
                "description": "COMMUNITY: per node a 9-bit channel mask (bit 8..0: tx ty tz rx ry rz sx sy sz).",
                "type": "array",
                "items": { "type": "string", "pattern": "^0x[0-9a-fA-F]{1,4}$" }
            },
            "headerTail": {
                "description": "PRESERVED_UNDECODED: bytes after the masks up to the header size.",
                "$ref": "#/$defs/base64"
            },
            "trackCount": { "type": "integer", "minimum": 0, "maximum": 4294967295u64 },
            "tracks": { "type": "array", "items": { "$ref": "#/$defs/motTrack" } },
            "tail": {
                "description": "Bytes after the last track (padding inside an archive).",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    defs.insert("motTrack".into(), json!({
        "description": "One track: head, tangent ranges (exactly for Hermite compressions 1 and 3), keys in the layout of the compression, bytes up to the span.",
        "type": "object",
        "additionalProperties": false,
        "required": ["head", "layout", "keys", "extra"],
        "properties": {
            "head": { "$ref": "#/$defs/motTrackHead" },
            "tangents": { "$ref": "#/$defs/motTangents" },
            "layout": { "enum": ["f32", "f32Hermite", "u16", "u16Hermite"] },
            "keys": {
                "type": "array",
                "items": {
                    "anyOf": [
                        { "$ref": "#/$defs/motKeyF32" },
                        { "$ref": "#/$defs/motKeyF32Hermite" },
                        { "$ref": "#/$defs/motKeyU16" },
                        { "$ref": "#/$defs/motKeyU16Hermite" }
                    ]
                }
            },
            "extra": {
                "description": "PRESERVED_UNDECODED: bytes between the keys' end and the span.",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    defs.insert("pacFile".into(), pac_file_def());
    texture_defs(defs);
    shadow_defs(defs);
    defs.insert("cltFile".into(), crate::ops::cloth::dump_def());
    let records = [
        (MotHeader::SCHEMA_NAME, MotHeader::schema()),
        (TrackHead::SCHEMA_NAME, TrackHead::schema()),
        (TangentRanges::SCHEMA_NAME, TangentRanges::schema()),
        (KeyF32::SCHEMA_NAME, KeyF32::schema()),
        (KeyF32Hermite::SCHEMA_NAME, KeyF32Hermite::schema()),
        (KeyU16::SCHEMA_NAME, KeyU16::schema()),
        (KeyU16Hermite::SCHEMA_NAME, KeyU16Hermite::schema()),
    ];
    for (name, schema) in records {
        defs.insert(name.into(), schema);
    }
}

/// The dump schema of a DMC3 archive (`pacFile`): its members are motions, models, PTX
/// bundles, textures, archives or opaque bytes.
fn pac_file_def() -> Value {
    json!({
        "description": "A DMC3 archive (docs/formats.md): the slot table (0 = empty), the bytes between it and the first member, the members in offset order, each following the previous one.",
        "type": "object",
        "additionalProperties": false,
        "required": ["offsets", "gap", "members"],
        "properties": {
            "offsets": { "type": "array", "items": { "$ref": "#/$defs/hex32" } },
            "gap": {
                "description": "PRESERVED_UNDECODED: bytes between the slot table and the first member.",
                "$ref": "#/$defs/base64"
            },
            "members": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["offset", "slots", "kind"],
                    "properties": {
                        "offset": { "$ref": "#/$defs/hex32" },
                        "slots": { "type": "array", "items": { "$ref": "#/$defs/index" } },
                        "kind": {
                            "oneOf": [
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["mot"],
                                    "properties": { "mot": { "$ref": "#/$defs/motFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["model"],
                                    "properties": { "model": {
                                        "anyOf": [
                                            { "$ref": "#/$defs/modFile" },
                                            { "$ref": "#/$defs/scmFile" }
                                        ]
                                    } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["ptx"],
                                    "properties": { "ptx": { "$ref": "#/$defs/ptxFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["texture"],
                                    "properties": { "texture": { "$ref": "#/$defs/textureEntry" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["archive"],
                                    "properties": { "archive": { "$ref": "#/$defs/pacFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["shadow"],
                                    "properties": { "shadow": { "$ref": "#/$defs/shwFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["cloth"],
                                    "properties": { "cloth": { "$ref": "#/$defs/cltFile" } }
                                },
                                {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["opaque"],
                                    "properties": { "opaque": { "$ref": "#/$defs/base64" } }
                                }
                            ]
                        }
                    }
                }
            }
        }
    })
}

/// The dump schema of a shadow model (see [`crate::native::dmc3::shadow`]).
fn shadow_defs(defs: &mut Map<String, Value>) {
    defs.insert("shwFile".into(), json!({
        "description": "A shadow model (SHW) read by the public layout: the 0x20-byte header, per hull its 0x40-byte record with its vertex count, four offsets (triangles, adjacency, vertices, selectors) and its four lists decoded (positions: per vertex x, y, z, w as f32 bits, base64 of the little-endian list; selectors: per vertex the joint that moves it, base64), and every byte after the records (the lists live there; the decoded values must agree with it).",
        "type": "object",
        "additionalProperties": false,
        "required": ["header", "hulls", "body"],
        "properties": {
            "header": { "$ref": "#/$defs/base64" },
            "body": { "$ref": "#/$defs/base64" },
            "hulls": {
                "type": "array",
                "minItems": 1,
                "maxItems": 255,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["record", "vertices", "offsets", "triangles", "adjacency", "positions", "selectors"],
                    "properties": {
                        "record": { "$ref": "#/$defs/base64" },
                        "vertices": { "type": "integer", "minimum": 0, "maximum": 65535 },
                        "offsets": { "type": "array", "minItems": 4, "maxItems": 4, "items": { "type": "integer", "minimum": 0 } },
                        "triangles": { "type": "array", "items": { "type": "array", "minItems": 3, "maxItems": 3, "items": { "type": "integer", "minimum": 0 } } },
                        "adjacency": { "type": "array", "items": { "type": "array", "minItems": 3, "maxItems": 3, "items": { "type": "integer", "minimum": 0, "maximum": 65535 } } },
                        "positions": { "$ref": "#/$defs/base64" },
                        "selectors": { "$ref": "#/$defs/base64" }
                    }
                }
            }
        }
    }));
}

/// The dump schema of PTX bundles and gfxTexture entries.
fn texture_defs(defs: &mut Map<String, Value>) {
    defs.insert("textureEntry".into(), json!({
        "description": "One gfxTexture entry: descriptor, DDS header, the whole mip levels the header describes (top level first), the bytes after them (sector padding in a bundle).",
        "type": "object",
        "additionalProperties": false,
        "required": ["descriptor", "dds", "chain", "padding"],
        "properties": {
            "descriptor": { "$ref": "#/$defs/gfxDescriptor" },
            "dds": { "$ref": "#/$defs/ddsHeader" },
            "chain": {
                "description": "The mip chain's bytes (BC1: 8 bytes per 4x4 block, BC3: 16).",
                "$ref": "#/$defs/base64"
            },
            "padding": {
                "description": "PRESERVED_UNDECODED: bytes after the chain.",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    defs.insert("ptxFile".into(), json!({
        "description": "A PTX bundle: the texture count and the span of each texture in 0x800-byte sectors are written from the textures (each must write a whole number of sectors), so the dump holds the textures only.",
        "type": "object",
        "additionalProperties": false,
        "required": ["tablePadding", "textures", "tail"],
        "properties": {
            "tablePadding": {
                "description": "PRESERVED_UNDECODED: bytes from the span table to the first sector boundary.",
                "$ref": "#/$defs/base64"
            },
            "textures": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/textureEntry" } },
            "tail": {
                "description": "PRESERVED_UNDECODED: bytes after the last texture.",
                "$ref": "#/$defs/base64"
            }
        }
    }));
    for (name, schema) in [
        (Descriptor::SCHEMA_NAME, Descriptor::schema()),
        (DdsHeader::SCHEMA_NAME, DdsHeader::schema()),
    ] {
        defs.insert(name.into(), schema);
    }
}
