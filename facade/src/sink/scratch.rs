//! For the file sinks' unit tests: a directory of one test's files under
//! the system temp directory, removed with everything in it when the guard
//! drops, also when the test fails first, so a run leaves nothing behind.

use std::path::{Path, PathBuf};

/// An empty directory unique to this process and `tag`.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn dir(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("elide-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
