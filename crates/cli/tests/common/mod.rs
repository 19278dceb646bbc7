//! Shared by the command's test files.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A file under the temp dir with a name no other test uses; removed on drop.
pub fn temp_file(name: &str, contents: &[u8]) -> TempFile {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("offsetlab-cli-{}-{n}-{name}", std::process::id()));
    std::fs::write(&path, contents).unwrap();
    TempFile(path)
}

pub struct TempFile(pub PathBuf);

impl TempFile {
    /// The path as an argument (tests split command lines on spaces).
    pub fn path(&self) -> &str {
        let path = self.0.to_str().unwrap();
        assert!(!path.contains(char::is_whitespace), "{path}");
        path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
