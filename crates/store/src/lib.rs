//! A consumer's position on disk, booblik's `FileOffsetStore` done right.
//!
//! [`FileOffsetStore`] writes a position the way that survives a crash at any
//! instant: a temp file in the same directory, write, fsync, atomic rename
//! over the old file, fsync the directory. A reader sees the old position or
//! the new one, never half of one. Reading validates the file (a magic line,
//! the decimal position and its CRC-32) and fails with a clear error on a
//! torn or foreign file instead of reading 0.
//!
//! [`InPlaceOffsetStore`] is the naive writer (truncate the file, write the
//! digits) kept for contrast: a crash mid-write leaves a torn file, which the
//! validating reader reports and [`naive_read`] silently takes for a smaller
//! position, as a reader that just parses digits would.
//!
//! Both writers take a [`Faults`] hook that can stop the write at any
//! [`WriteStep`], as a crash would; the tests stop it at every step.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// First bytes of every position file.
pub const MAGIC: &str = "offsetlab-position v1";
/// A position file is one short line; anything longer is not ours.
pub const FILE_BYTES_MAX: u64 = 128;

/// Where a write can be interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteStep {
    /// The temp file exists, empty (in place: the file is truncated).
    Created,
    /// This many bytes of the new content are written.
    PartiallyWritten(usize),
    /// All bytes written, not yet synced.
    Written,
    /// The file's data is synced.
    Synced,
    /// Just before the rename (atomic writer only).
    BeforeRename,
    /// Renamed over the old file, directory not yet synced (atomic writer only).
    Renamed,
    /// The directory is synced: the write is durable.
    Done,
}

/// Decides, at each step, whether the write goes on (`Continue`) or the
/// process "dies" there (`Break`).
pub trait Faults {
    fn at(&mut self, step: WriteStep) -> ControlFlow<()>;
}

/// No faults: every write completes.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFaults;

impl Faults for NoFaults {
    fn at(&mut self, _: WriteStep) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl<F: FnMut(WriteStep) -> ControlFlow<()>> Faults for F {
    fn at(&mut self, step: WriteStep) -> ControlFlow<()> {
        self(step)
    }
}

/// Why a position could not be stored or read.
#[derive(Debug)]
pub enum StoreError {
    Io {
        path: PathBuf,
        source: io::Error,
    },
    /// A write was cut short: the file holds part of a position file.
    Torn {
        path: PathBuf,
        detail: String,
    },
    /// Not a position file at all.
    Foreign {
        path: PathBuf,
        detail: String,
    },
    /// A name that would leave the store's directory.
    BadName(String),
    /// The write was stopped by a fault hook (the simulated crash).
    Interrupted(WriteStep),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            StoreError::Torn { path, detail } => {
                write!(f, "{}: torn position file ({detail}); refusing to guess a position", path.display())
            }
            StoreError::Foreign { path, detail } => {
                write!(f, "{}: not an offsetlab position file ({detail})", path.display())
            }
            StoreError::BadName(name) => {
                write!(
                    f,
                    "{name:?} is not a store name (letters, digits, '-', '_' and '.', not starting with '.')"
                )
            }
            StoreError::Interrupted(step) => write!(f, "write interrupted at {step:?}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io { path: path.to_path_buf(), source }
}

/// The bytes of a position file: `offsetlab-position v1 <position> <crc32>\n`.
#[must_use]
pub fn encode(position: u64) -> Vec<u8> {
    let digits = position.to_string();
    format!("{MAGIC} {digits} {:08x}\n", crc32fast::hash(digits.as_bytes())).into_bytes()
}

/// Parses and validates a position file's bytes.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<u64, StoreError> {
    let torn = |detail: &str| StoreError::Torn { path: path.to_path_buf(), detail: detail.to_string() };
    let foreign = |detail: &str| StoreError::Foreign { path: path.to_path_buf(), detail: detail.to_string() };
    if bytes.is_empty() {
        return Err(torn("empty: the write stopped before its first byte"));
    }
    let Ok(text) = std::str::from_utf8(bytes) else { return Err(foreign("not UTF-8 text")) };
    // Anything that is a strict prefix of a well-formed file is torn; anything else is foreign.
    let Some(rest) = text.strip_prefix(MAGIC) else {
        return Err(if MAGIC.starts_with(text) {
            torn("it ends inside the header")
        } else {
            foreign("no offsetlab-position header")
        });
    };
    let Some(line) = rest.strip_suffix('\n') else {
        return Err(if rest.contains('\n') {
            foreign("more than one line")
        } else {
            torn("no final newline")
        });
    };
    let mut fields = line.split(' ');
    let (Some(""), Some(digits), Some(crc), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(torn("fields missing after the header"));
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(foreign("the position is not a decimal number"));
    }
    if crc.len() != 8 {
        return Err(torn("the checksum is cut short"));
    }
    let expected = u32::from_str_radix(crc, 16).map_err(|_| foreign("the checksum is not hexadecimal"))?;
    if crc32fast::hash(digits.as_bytes()) != expected {
        return Err(torn("the checksum does not match the position"));
    }
    digits.parse().map_err(|_| foreign("the position does not fit in 64 bits"))
}

/// What a reader that only parses leading digits makes of a file (booblik's
/// naive reader): the digits after the header, 0 if there are none. Shows how
/// a torn in-place write turns `1234` into `12` without a word.
#[must_use]
pub fn naive_read(bytes: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(bytes);
    let rest = text.strip_prefix(MAGIC).unwrap_or(&text).trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

fn check_name(name: &str) -> Result<(), StoreError> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if ok { Ok(()) } else { Err(StoreError::BadName(name.to_string())) }
}

fn read_file(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path)(e)),
    };
    let mut bytes = Vec::new();
    // Bounded: a position file is one short line.
    file.take(FILE_BYTES_MAX + 1).read_to_end(&mut bytes).map_err(io_error(path))?;
    if bytes.len() as u64 > FILE_BYTES_MAX {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            detail: format!("longer than {FILE_BYTES_MAX} bytes"),
        });
    }
    Ok(Some(bytes))
}

fn stop(faults: &mut dyn Faults, step: WriteStep) -> Result<(), StoreError> {
    match faults.at(step) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(StoreError::Interrupted(step)),
    }
}

/// Writes `bytes` in two halves, offering the fault hook every byte count in between.
fn write_in_steps(
    file: &mut File,
    path: &Path,
    bytes: &[u8],
    faults: &mut dyn Faults,
) -> Result<(), StoreError> {
    for written in 1..bytes.len() {
        file.write_all(&bytes[written - 1..written]).map_err(io_error(path))?;
        stop(faults, WriteStep::PartiallyWritten(written))?;
    }
    if let Some(last) = bytes.last() {
        file.write_all(std::slice::from_ref(last)).map_err(io_error(path))?;
    }
    stop(faults, WriteStep::Written)
}

/// booblik's `FileOffsetStore`, crash-safe: one file per name in a directory.
#[derive(Debug, Clone)]
pub struct FileOffsetStore {
    dir: PathBuf,
}

impl FileOffsetStore {
    /// A store in `dir`, created if missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<FileOffsetStore, StoreError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        Ok(FileOffsetStore { dir })
    }

    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds `name`'s position.
    pub fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        check_name(name)?;
        Ok(self.dir.join(format!("{name}.pos")))
    }

    /// The stored position, `None` if none was ever stored.
    pub fn read(&self, name: &str) -> Result<Option<u64>, StoreError> {
        let path = self.path(name)?;
        read_file(&path)?.map(|bytes| decode(&path, &bytes)).transpose()
    }

    pub fn write(&self, name: &str, position: u64) -> Result<(), StoreError> {
        self.write_with(name, position, &mut NoFaults)
    }

    /// Temp file in the same directory, write, fsync, rename over the old
    /// file, fsync the directory; `faults` may stop it at any step.
    pub fn write_with(&self, name: &str, position: u64, faults: &mut dyn Faults) -> Result<(), StoreError> {
        let path = self.path(name)?;
        let temp = self.dir.join(format!("{name}.pos.tmp"));
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)
            .map_err(io_error(&temp))?;
        stop(faults, WriteStep::Created)?;
        write_in_steps(&mut file, &temp, &encode(position), faults)?;
        file.sync_all().map_err(io_error(&temp))?;
        stop(faults, WriteStep::Synced)?;
        drop(file);
        stop(faults, WriteStep::BeforeRename)?;
        fs::rename(&temp, &path).map_err(io_error(&path))?;
        stop(faults, WriteStep::Renamed)?;
        sync_dir(&self.dir)?;
        stop(faults, WriteStep::Done)
    }
}

/// Makes the rename durable: fsync the directory (a no-op where directories
/// cannot be opened, as on Windows).
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    match File::open(dir) {
        Ok(handle) => match handle.sync_all() {
            Ok(()) => Ok(()),
            // Some file systems refuse fsync on a directory; the rename is still atomic.
            Err(e) if e.kind() == io::ErrorKind::InvalidInput || e.kind() == io::ErrorKind::Unsupported => {
                Ok(())
            }
            Err(e) => Err(io_error(dir)(e)),
        },
        Err(_) => Ok(()),
    }
}

/// The naive writer: truncate the position file and write it in place.
#[derive(Debug, Clone)]
pub struct InPlaceOffsetStore {
    dir: PathBuf,
}

impl InPlaceOffsetStore {
    pub fn open(dir: impl Into<PathBuf>) -> Result<InPlaceOffsetStore, StoreError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        Ok(InPlaceOffsetStore { dir })
    }

    pub fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        check_name(name)?;
        Ok(self.dir.join(format!("{name}.pos")))
    }

    /// Truncate, write, fsync; `faults` may stop it at any step.
    pub fn write_with(&self, name: &str, position: u64, faults: &mut dyn Faults) -> Result<(), StoreError> {
        let path = self.path(name)?;
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(io_error(&path))?;
        stop(faults, WriteStep::Created)?;
        write_in_steps(&mut file, &path, &encode(position), faults)?;
        file.sync_all().map_err(io_error(&path))?;
        stop(faults, WriteStep::Synced)?;
        stop(faults, WriteStep::Done)
    }

    /// The raw bytes on disk (`None` if absent), for the validating or the naive reader.
    pub fn raw(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        read_file(&self.path(name)?)
    }
}
