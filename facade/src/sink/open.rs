//! Opening a log file: the one way every file sink does it.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for appending, creating the file and its parent
/// directories if needed, so several runs (or processes) add to one log.
///
/// Only regular files and character devices (a terminal, `/dev/null`) are
/// opened: opening a FIFO with no reader would block start-up for good, and
/// a socket or block device is no log. Such a path is an error (callers warn
/// and fall back). The kind is checked before opening and again on the
/// open file.
pub(crate) fn open_append(path: &Path) -> io::Result<File> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::metadata(path) {
        Ok(meta) => loggable(&meta)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    loggable(&file.metadata()?)?;
    Ok(file)
}

/// Whether a file of this kind can take log lines without blocking `open`.
fn loggable(meta: &Metadata) -> io::Result<()> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return Ok(());
        }
        if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_socket() {
            "a socket"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        }
    };
    #[cfg(not(unix))]
    let what = if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{what}: only regular files and character devices are logged to"),
    ))
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn character_devices_and_files_open_a_fifo_is_refused_without_blocking() {
        assert!(open_append(Path::new("/dev/null")).is_ok());
        let dir = crate::sink::scratch::Scratch::dir("open");
        assert!(open_append(&dir.join("plain.log")).is_ok());
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.map(|s| s.success()).unwrap_or(false) {
            // Without the check this open blocks forever (no reader): it
            // runs on a thread with a deadline, so the test fails instead
            // of hanging, and a reader then releases the stuck open.
            let (tx, rx) = std::sync::mpsc::channel();
            let path = fifo.clone();
            std::thread::spawn(move || {
                let _ = tx.send(open_append(&path).map(drop));
            });
            let err = match rx.recv_timeout(std::time::Duration::from_secs(10)) {
                Ok(result) => result.unwrap_err(),
                Err(_) => {
                    let _reader = std::fs::File::open(&fifo);
                    panic!("open_append blocked on a FIFO with no reader");
                }
            };
            assert!(err.to_string().contains("FIFO"), "{err}");
        } else {
            eprintln!("skipped the FIFO case: mkfifo is not available");
        }
        let err = open_append(&dir).unwrap_err();
        assert!(err.to_string().contains("directory"), "{err}");
    }
}
