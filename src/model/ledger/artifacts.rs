//! The artifact store of seed 000: parts addressed by coordinate
//! (artifact id, part number), checksummed, closed per artifact by a final
//! flag and for the whole result by a manifest.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::digest::{sha256_fields, sha256_hex};

/// One streamed part of an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Which artifact the part belongs to.
    pub artifact_id: String,
    /// Monotonically increasing part number, from 0.
    pub part: u32,
    /// Media type of the bytes, e.g. `text/plain`.
    pub media_type: String,
    /// SHA-256 of the bytes.
    pub checksum: String,
    /// This part closes its artifact.
    #[serde(rename = "final")]
    pub last: bool,
    /// The bytes, as text (the lab's artifacts are text parts).
    pub text: String,
}

impl Part {
    /// A text part whose checksum is computed from its text.
    pub fn text(artifact_id: &str, part: u32, text: &str, last: bool) -> Part {
        Part {
            artifact_id: artifact_id.to_string(),
            part,
            media_type: "text/plain".to_string(),
            checksum: sha256_hex(text.as_bytes()),
            last,
            text: text.to_string(),
        }
    }

    /// The part's coordinate.
    pub fn coordinate(&self) -> Coordinate {
        self.borrowed().coordinate()
    }

    /// The part, borrowed.
    pub fn borrowed(&self) -> PartRef<'_> {
        PartRef {
            artifact_id: &self.artifact_id,
            part: self.part,
            media_type: &self.media_type,
            checksum: &self.checksum,
            last: self.last,
            text: &self.text,
        }
    }
}

/// A borrowed [`Part`]: what the ledger judges, so that a part read from a
/// capture is offered without copying its text; owned only once stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartRef<'a> {
    /// Which artifact the part belongs to.
    pub artifact_id: &'a str,
    /// Its part number, from 0.
    pub part: u32,
    /// Media type of the bytes.
    pub media_type: &'a str,
    /// SHA-256 of the bytes.
    pub checksum: &'a str,
    /// This part closes its artifact.
    pub last: bool,
    /// The bytes, as text.
    pub text: &'a str,
}

impl PartRef<'_> {
    /// The part's coordinate.
    pub fn coordinate(&self) -> Coordinate {
        Coordinate {
            artifact_id: self.artifact_id.to_string(),
            part: self.part,
        }
    }

    /// The part, owned, as it is stored.
    pub fn owned(&self) -> Part {
        Part {
            artifact_id: self.artifact_id.to_string(),
            part: self.part,
            media_type: self.media_type.to_string(),
            checksum: self.checksum.to_string(),
            last: self.last,
            text: self.text.to_string(),
        }
    }
}

/// (artifact id, part number): where a part lives, independent of the task's
/// status sequence.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Coordinate {
    /// The artifact.
    pub artifact_id: String,
    /// The part number within it.
    pub part: u32,
}

impl std::fmt::Display for Coordinate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.artifact_id, self.part)
    }
}

/// What the store did with a part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum PartOutcome {
    /// A new coordinate, stored.
    Stored,
    /// The same coordinate with the same checksum: harmless, nothing changes.
    Replay,
    /// The same coordinate with different bytes: a protocol incident,
    /// recorded; the stored part is never overwritten.
    ConflictingCoordinate,
    /// The manifest already closed the result set.
    ResultSetClosed,
}

/// A recorded protocol incident.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incident {
    /// Where it happened.
    pub coordinate: Coordinate,
    /// The checksum that is stored and stays.
    pub stored_checksum: String,
    /// The checksum that tried to replace it.
    pub offered_checksum: String,
}

/// The manifest that closes the result set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Manifest id (M9 in the seed's T-42).
    pub id: String,
    /// Each artifact with its part count and content hash.
    pub artifacts: Vec<ManifestEntry>,
}

/// One artifact named by a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The artifact.
    pub artifact_id: String,
    /// How many parts it has.
    pub parts: u32,
    /// SHA-256 over its parts' checksums in part order, at closing time.
    pub hash: String,
}

/// How far a client has read each artifact: the highest part number it holds.
/// `draft/0` means it holds part 0 of `draft`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactCursor(pub BTreeMap<String, u32>);

impl ArtifactCursor {
    /// Parses `id/part` pairs separated by commas (`draft/0,notes/3`).
    pub fn parse(text: &str) -> Result<ArtifactCursor, CursorError> {
        let mut map = BTreeMap::new();
        for item in text.split(',').filter(|s| !s.is_empty()) {
            let fault = |fault| CursorError {
                item: item.to_string(),
                fault,
            };
            let (id, part) = item
                .rsplit_once('/')
                .ok_or_else(|| fault(CursorFault::NoSlash))?;
            let part: u32 = part.parse().map_err(|_| fault(CursorFault::NotANumber))?;
            if id.is_empty() {
                return Err(fault(CursorFault::NoArtifactId));
            }
            map.insert(id.to_string(), part);
        }
        Ok(ArtifactCursor(map))
    }
}

/// An artifact cursor's item that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorError {
    /// The item, as given.
    pub item: String,
    /// What is wrong with it.
    pub fault: CursorFault,
}

/// What is wrong with an artifact cursor's item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorFault {
    /// It is not `artifact/part`.
    NoSlash,
    /// Its part is not a number.
    NotANumber,
    /// It names no artifact.
    NoArtifactId,
}

impl std::fmt::Display for CursorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let item = &self.item;
        match self.fault {
            CursorFault::NoSlash => write!(f, "artifact cursor `{item}` is not `artifact/part`"),
            CursorFault::NotANumber => write!(f, "artifact cursor `{item}`: part is not a number"),
            CursorFault::NoArtifactId => write!(f, "artifact cursor `{item}` has no artifact id"),
        }
    }
}

/// Parts of one artifact, by part number.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactRecord {
    /// Stored parts by number.
    pub parts: BTreeMap<u32, Part>,
    /// The part number that carried the final flag, once seen.
    pub final_part: Option<u32>,
}

impl ArtifactRecord {
    /// Closed by its final flag with every part up to it present.
    pub fn is_complete(&self) -> bool {
        match self.final_part {
            Some(last) => (0..=last).all(|n| self.parts.contains_key(&n)),
            None => false,
        }
    }
}

/// The store: artifacts by id, incidents, and the manifest once closed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactStore {
    /// Artifacts by id, in id order so that serialization is deterministic.
    pub artifacts: BTreeMap<String, ArtifactRecord>,
    /// Every conflicting-coordinate incident, in arrival order.
    pub incidents: Vec<Incident>,
    /// Set once the result set is closed.
    pub manifest: Option<Manifest>,
}

impl ArtifactStore {
    /// Judges a part without changing anything: where it would go and
    /// what storing it would mean.
    pub fn judge(&self, part: PartRef<'_>) -> PartOutcome {
        if self.manifest.is_some() {
            return PartOutcome::ResultSetClosed;
        }
        let stored = self
            .artifacts
            .get(part.artifact_id)
            .and_then(|record| record.parts.get(&part.part));
        match stored {
            Some(stored) if stored.checksum == part.checksum => PartOutcome::Replay,
            Some(_) => PartOutcome::ConflictingCoordinate,
            None => PartOutcome::Stored,
        }
    }

    /// Carries out what [`ArtifactStore::judge`] decided for `part`: a new
    /// coordinate is stored, a conflict is recorded as an incident (the
    /// stored part stays), anything else changes nothing.
    pub fn commit(&mut self, part: PartRef<'_>, outcome: &PartOutcome) {
        match outcome {
            PartOutcome::Stored => {
                // The id is copied only for an artifact's first part.
                let record = match self.artifacts.get_mut(part.artifact_id) {
                    Some(record) => record,
                    None => self
                        .artifacts
                        .entry(part.artifact_id.to_string())
                        .or_default(),
                };
                if part.last {
                    record.final_part = Some(part.part);
                }
                record.parts.insert(part.part, part.owned());
            }
            PartOutcome::ConflictingCoordinate => {
                let stored_checksum = self
                    .artifacts
                    .get(part.artifact_id)
                    .and_then(|record| record.parts.get(&part.part))
                    .map(|stored| stored.checksum.clone())
                    .unwrap_or_default();
                self.incidents.push(Incident {
                    coordinate: part.coordinate(),
                    stored_checksum,
                    offered_checksum: part.checksum.to_string(),
                });
            }
            PartOutcome::Replay | PartOutcome::ResultSetClosed => {}
        }
    }

    /// Closes the result set with a manifest of what is stored now.
    pub fn close(&mut self, manifest_id: &str) -> &Manifest {
        let artifacts = self
            .artifacts
            .iter()
            .map(|(id, record)| ManifestEntry {
                artifact_id: id.clone(),
                parts: record.parts.len() as u32,
                hash: artifact_hash(record),
            })
            .collect();
        self.manifest.insert(Manifest {
            id: manifest_id.to_string(),
            artifacts,
        })
    }

    /// Content hash of each artifact, by id: what replays must converge on.
    pub fn artifact_hashes(&self) -> BTreeMap<String, String> {
        self.artifacts
            .iter()
            .map(|(id, record)| (id.clone(), artifact_hash(record)))
            .collect()
    }

    /// The parts a reconnecting client lacks, given how far it has read:
    /// for each artifact, the parts above its cursor (all parts of an
    /// artifact it has not seen), in coordinate order.
    pub fn suffix(&self, cursor: &ArtifactCursor) -> Vec<&Part> {
        let mut out = Vec::new();
        for (id, record) in &self.artifacts {
            let held = cursor.0.get(id);
            for (n, part) in &record.parts {
                if held.is_none_or(|&h| *n > h) {
                    out.push(part);
                }
            }
        }
        out
    }

    /// Stored parts over all artifacts.
    pub fn part_count(&self) -> usize {
        self.artifacts.values().map(|r| r.parts.len()).sum()
    }
}

/// SHA-256 over the checksums of an artifact's parts in part order.
fn artifact_hash(record: &ArtifactRecord) -> String {
    let numbered: Vec<String> = record
        .parts
        .iter()
        .map(|(n, p)| format!("{n}:{}", p.checksum))
        .collect();
    let fields: Vec<&str> = numbered.iter().map(String::as_str).collect();
    sha256_fields(&fields)
}
