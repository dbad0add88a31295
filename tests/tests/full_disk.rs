//! Log files on a disk that fills up and frees space mid-run: every line
//! in every file is one whole record, whichever file sink wrote it.
//!
//! Needs a tiny tmpfs, so it mounts one: as root (CI runs as root); where
//! mounting is not permitted it prints why and passes without checking.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use elide::sink::{AsyncSink, DurableFileSink};
use elide::{LevelFilter, Sink};

/// A mounted tmpfs, unmounted (and its mount point removed) on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Result<Tmpfs, String> {
        let dir = std::env::temp_dir().join(format!("elide-full-{}", std::process::id()));
        fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            let _ = fs::remove_dir(&dir);
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        Ok(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: a sink of the process may still hold its file open.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        let _ = fs::remove_dir(&self.0);
    }
}

/// Fills the filesystem of `dir`, then frees `pages` pages of 4 KiB.
fn fill_leaving(dir: &Path, pages: u64) -> PathBuf {
    let filler = dir.join("filler");
    let mut f = File::create(&filler).unwrap();
    let block = [0u8; 4096];
    while f.write_all(&block).is_ok() {}
    let len = f.metadata().unwrap().len() / 4096 * 4096;
    f.set_len(len.saturating_sub(pages * 4096)).unwrap();
    filler
}

/// Every line parses as one RADICAL record: a time with three decimals,
/// exactly five separators, `seq=N` at the end. Returns the seqs.
fn whole_records(path: &Path) -> Vec<u64> {
    let text = fs::read_to_string(path).unwrap();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "{path:?} ends torn: {:?}",
        &text[text.len().saturating_sub(300)..]
    );
    text.lines()
        .map(|line| {
            let time = line.split(" : ").next().unwrap();
            let whole = line.matches(" : ").count() == 5
                && time.parse::<f64>().is_ok()
                && time.find('.').map(|dot| time.len() - dot) == Some(4);
            let seq = line.rsplit(" seq=").next().and_then(|s| s.parse().ok());
            match (whole, seq) {
                (true, Some(seq)) => seq,
                _ => panic!("torn line in {path:?}: {line:?}"),
            }
        })
        .collect()
}

#[test]
fn lines_stay_whole_when_the_disk_fills_and_frees() {
    let fs_ = match Tmpfs::mount("256k") {
        Ok(fs_) => fs_,
        Err(why) => {
            eprintln!("skipped: cannot mount a tmpfs here ({why})");
            return;
        }
    };
    let filler = fill_leaving(&fs_.0, 3);
    let durable_async = Arc::new(AsyncSink::open_durable(fs_.0.join("async-durable.log")).unwrap());
    let plain_async = Arc::new(AsyncSink::open(fs_.0.join("async.log")).unwrap());
    let durable = Arc::new(DurableFileSink::open(fs_.0.join("durable.log")).unwrap());
    elide::set_sinks([
        durable_async.clone() as Arc<dyn Sink>,
        plain_async.clone(),
        durable.clone(),
    ]);
    elide::set_level(LevelFilter::Info);
    const N: u64 = 400;
    for seq in 0..N / 2 {
        elide::info!("filling the disk seq={seq}");
    }
    elide::flush();
    fs::remove_file(&filler).unwrap();
    for seq in N / 2..N {
        elide::info!("filling the disk seq={seq}");
    }
    elide::flush();

    let a = durable_async.stats();
    let seqs = whole_records(&fs_.0.join("async-durable.log"));
    assert_eq!((a.written, a.written + a.failed), (seqs.len() as u64, N));
    assert!(a.failed > 0, "the disk was full: {a:?}");
    let p = plain_async.stats();
    let seqs = whole_records(&fs_.0.join("async.log"));
    assert_eq!((p.written, p.written + p.failed), (seqs.len() as u64, N));
    let seqs = whole_records(&fs_.0.join("durable.log"));
    assert_eq!(durable.written(), seqs.len() as u64);
    assert_eq!(durable.written() + durable.failed(), N);
    assert!(durable.failed() > 0, "the disk was full");
    assert!(seqs.contains(&(N - 1)), "writes resume once space is freed");
    elide::set_sinks([]);
}
