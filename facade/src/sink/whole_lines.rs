//! Writing lines so that a failed write never tears a later record.
//!
//! A writer that fails part-way (a full disk accepts the first bytes of a
//! line, then answers `ENOSPC`) leaves the start of a line in the output,
//! and whatever is written next would be glued to it. So the unwritten rest
//! of that line is written first by the next write: the output only holds
//! whole lines, and the torn record is completed late instead of lost (or,
//! if no write ever succeeds again, it is the last, unterminated line).
//!
//! Not `ftruncate` back to the last whole line: that works only on regular
//! files (not the pipes and writers an async sink takes), and with
//! `O_APPEND` it would cut lines another process appended meanwhile. The
//! cost: while the disk is full, another process's line can land between
//! the fragment and its rest.

use crate::contain::contained;
use std::io::{self, Write};

/// The rest of a torn line, waiting to be written before anything else.
#[derive(Debug, Default)]
pub(crate) struct WholeLines {
    rest: Vec<u8>,
    /// Whether the torn line is a record (not a writer's notice).
    torn_record: bool,
}

/// Records accounted by [`WholeLines::write_records`].
#[derive(Debug)]
pub(crate) struct Tally {
    /// Records now whole in the output (a completed torn one included).
    pub(crate) written: u64,
    /// Records of this batch the write did not finish (a torn one included:
    /// it counts as failed until a later write completes it).
    pub(crate) failed: u64,
    /// Records counted as failed earlier and completed now (take them back
    /// from the failed count; `written` has them).
    pub(crate) revived: u64,
    /// The error, if the batch was not written in full.
    pub(crate) error: Option<io::Error>,
}

/// What a [`WholeLines::write`] achieved.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Whether a line torn by an earlier failure was completed first.
    pub(crate) completed_torn: bool,
    /// Bytes of the new text that are whole lines in the output.
    pub(crate) whole: usize,
    /// Whether the line starting at `whole` was torn (its rest is kept).
    pub(crate) torn: bool,
    /// The error, if the text was not written in full.
    pub(crate) error: Option<io::Error>,
}

impl WholeLines {
    /// Writes a writer's batch: `text` holds `records` record lines plus
    /// notice lines (not records) starting at the offsets in `notices`.
    pub(crate) fn write_records(
        &mut self,
        out: &mut dyn Write,
        text: &str,
        records: u64,
        notices: &[usize],
    ) -> Tally {
        let o = self.write(out, text.as_bytes());
        let revived = u64::from(o.completed_torn && std::mem::take(&mut self.torn_record));
        // Written in full (the usual case): every record's line, without
        // reading the text again (a byte-by-byte count of its newlines cost
        // the async writer about a fifth of its time per record).
        let whole = if o.error.is_none() && o.whole == text.len() {
            debug_assert_eq!(
                text.bytes().filter(|&b| b == b'\n').count() as u64,
                records + notices.len() as u64,
                "one line per record and per notice"
            );
            records
        } else {
            let lines = text.as_bytes()[..o.whole]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            let notices_whole = notices.iter().filter(|&&at| at < o.whole).count() as u64;
            lines - notices_whole
        };
        if o.error.is_some() && o.torn {
            self.torn_record = !notices.contains(&o.whole);
        }
        Tally {
            written: whole + revived,
            failed: records - whole,
            revived,
            error: o.error,
        }
    }

    /// Writes the rest of a torn line, then `text` (whole lines, each ending
    /// in `\n`). A panic of `out` is contained and reported as an error
    /// (nothing it may have written is counted).
    pub(crate) fn write(&mut self, out: &mut dyn Write, text: &[u8]) -> Outcome {
        let mut completed_torn = false;
        if !self.rest.is_empty() {
            let (done, res) = write_counted(out, &self.rest);
            self.rest.drain(..done);
            if let Err(e) = res {
                return Outcome {
                    completed_torn,
                    whole: 0,
                    torn: false,
                    error: Some(e),
                };
            }
            completed_torn = true;
        }
        let (done, res) = write_counted(out, text);
        let Err(e) = res else {
            return Outcome {
                completed_torn,
                whole: text.len(),
                torn: false,
                error: None,
            };
        };
        let whole = text[..done]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let torn = done > whole;
        if torn {
            let end = text[done..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(text.len(), |i| done + i + 1);
            self.rest.extend_from_slice(&text[done..end]);
        }
        Outcome {
            completed_torn,
            whole,
            torn,
            error: Some(e),
        }
    }
}

/// Writes `buf`, returning how many bytes `out` accepted before an error.
fn write_counted(out: &mut dyn Write, buf: &[u8]) -> (usize, io::Result<()>) {
    let mut done = 0;
    while done < buf.len() {
        match contained(|| out.write(&buf[done..])) {
            Some(Ok(0)) => return (done, Err(io::ErrorKind::WriteZero.into())),
            Some(Ok(n)) => done += n.min(buf.len() - done),
            Some(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Some(Err(e)) => return (done, Err(e)),
            None => return (done, Err(io::Error::other("the writer panicked"))),
        }
    }
    (done, Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts `budget` bytes, then fails until given more.
    struct Full {
        out: Vec<u8>,
        budget: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.budget == 0 {
                return Err(io::Error::other("no space"));
            }
            let n = buf.len().min(self.budget);
            self.budget -= n;
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_torn_line_is_completed_before_the_next_one() {
        let mut w = WholeLines::default();
        let mut out = Full {
            out: Vec::new(),
            budget: 7,
        };
        let o = w.write(&mut out, b"aaa\nbbbb\ncc\n");
        assert_eq!((o.whole, o.torn, o.error.is_some()), (4, true, true));
        assert_eq!(w.rest, b"b\n");
        let o = w.write(&mut out, b"dd\n");
        assert!(o.error.is_some() && !o.completed_torn && o.whole == 0);
        out.budget = 100;
        let o = w.write(&mut out, b"ee\n");
        assert!(o.completed_torn && o.error.is_none() && o.whole == 3);
        assert_eq!(out.out, b"aaa\nbbbb\nee\n");
        assert!(w.rest.is_empty());
    }

    fn full(budget: usize) -> Full {
        Full {
            out: Vec::new(),
            budget,
        }
    }

    #[test]
    fn a_failure_at_a_line_boundary_tears_nothing() {
        let mut w = WholeLines::default();
        let mut out = full(4);
        let t = w.write_records(&mut out, "aaa\nbbb\n", 2, &[]);
        assert_eq!((t.written, t.failed, t.revived), (1, 1, 0));
        assert!(
            w.rest.is_empty(),
            "nothing of bbb was written: {:?}",
            w.rest
        );
        out.budget = 100;
        let t = w.write_records(&mut out, "ccc\n", 1, &[]);
        assert_eq!((t.written, t.failed, t.revived), (1, 0, 0));
        assert_eq!(
            out.out, b"aaa\nccc\n",
            "the failed record is not written late"
        );
    }

    #[test]
    fn a_notice_not_yet_written_is_not_counted_as_written() {
        let mut w = WholeLines::default();
        // A record, then a writer's notice at offset 4, then a record; the
        // writer takes exactly the first line.
        let t = w.write_records(&mut full(4), "rec\nnote\nrec\n", 2, &[4]);
        assert_eq!((t.written, t.failed), (1, 1));
    }

    #[test]
    fn a_torn_record_completed_later_counts_as_written_then() {
        let mut w = WholeLines::default();
        let mut out = full(6);
        let t = w.write_records(&mut out, "rec\nrecord\n", 2, &[]);
        assert_eq!((t.written, t.failed, t.revived), (1, 1, 0));
        out.budget = 100;
        let t = w.write_records(&mut out, "r3\n", 1, &[]);
        assert_eq!((t.written, t.failed, t.revived), (2, 0, 1));
        assert_eq!(out.out, b"rec\nrecord\nr3\n");
    }

    #[test]
    fn written_notices_are_not_counted_as_records() {
        let mut out = full(100);
        let t = WholeLines::default().write_records(&mut out, "note\nrec\n", 1, &[0]);
        assert_eq!((t.written, t.failed), (1, 0));
    }

    #[test]
    fn a_notice_written_before_a_failure_is_not_counted_as_a_record() {
        // The writer takes the notice and the first record, then fails.
        let mut out = full(9);
        let t = WholeLines::default().write_records(&mut out, "note\nrec\nrec\n", 2, &[0]);
        assert_eq!((t.written, t.failed), (1, 1));
        assert_eq!(out.out, b"note\nrec\n");
    }

    #[test]
    fn an_interrupted_write_is_retried() {
        struct Interrupts(Vec<u8>, bool);
        impl Write for Interrupts {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if std::mem::take(&mut self.1) {
                    return Err(io::ErrorKind::Interrupted.into());
                }
                self.0.extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut out = Interrupts(Vec::new(), true);
        let t = WholeLines::default().write_records(&mut out, "a\nb\n", 2, &[]);
        assert_eq!((t.written, t.failed, t.error.is_none()), (2, 0, true));
        assert_eq!(out.0, b"a\nb\n");
    }

    #[test]
    fn a_writer_that_claims_more_than_it_was_given_is_held_to_the_buffer() {
        // Takes one byte per call and, after the first call, claims six:
        // io::Write forbids it, a logger must survive it.
        struct Boasts(Vec<u8>);
        impl Write for Boasts {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                let first = self.0.is_empty();
                self.0.push(buf[0]);
                Ok(if first { 1 } else { 6 })
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = WholeLines::default();
        let mut torn = full(2);
        w.write(&mut torn, b"abcd\n");
        assert_eq!(w.rest, b"cd\n");
        let mut out = Boasts(Vec::new());
        let o = w.write(&mut out, b"ef\n");
        assert!(o.completed_torn && o.error.is_none());
        assert!(w.rest.is_empty());
        assert_eq!(out.0, b"cde", "one byte per call, as it took them");
    }

    #[test]
    fn a_torn_notice_completed_later_revives_no_record() {
        let mut w = WholeLines::default();
        let mut out = full(6);
        // "rec\n" whole, the notice at 4 torn after "no".
        let t = w.write_records(&mut out, "rec\nnote\n", 1, &[4]);
        assert_eq!((t.written, t.failed), (1, 0));
        // The next batch (a record first) fails while the notice's rest is
        // being written: still nothing torn of it.
        let t = w.write_records(&mut out, "r2\n", 1, &[]);
        assert_eq!((t.written, t.failed, t.revived), (0, 1, 0));
        out.budget = 100;
        let t = w.write_records(&mut out, "r3\n", 1, &[]);
        assert_eq!(
            (t.written, t.failed, t.revived),
            (1, 0, 0),
            "the notice is no record"
        );
        assert_eq!(out.out, b"rec\nnote\nr3\n");
    }
}
