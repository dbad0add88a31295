//! Counting LLVM IR: how much code a crate hands to the backend.

/// Line counts of one or more `.ll` files.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct IrLines {
    /// Every line of the file(s).
    pub total: u64,
    /// Instruction lines inside function definitions: indented by exactly
    /// two spaces, which leaves out labels, the `define`/`}` lines and debug
    /// records (indented deeper). The quantity `cargo llvm-lines` sums.
    pub instructions: u64,
    /// Number of function definitions.
    pub functions: u64,
}

impl std::ops::AddAssign for IrLines {
    fn add_assign(&mut self, o: Self) {
        self.total += o.total;
        self.instructions += o.instructions;
        self.functions += o.functions;
    }
}

/// Counts the lines of one `.ll` text.
pub fn count(ll: &str) -> IrLines {
    let mut n = IrLines::default();
    let mut inside = false;
    for line in ll.lines() {
        n.total += 1;
        if line.starts_with("define ") {
            n.functions += 1;
            inside = true;
        } else if line == "}" {
            inside = false;
        } else if inside && line.starts_with("  ") && !line.starts_with("   ") {
            n.instructions += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
; ModuleID = 'x'
source_filename = \"x\"
@alloc_1 = private constant [3 x i8] c\"abc\"

define internal void @f() unnamed_addr #0 {
start:
    #dbg_declare(ptr %x, !10, !DIExpression(), !12)
  ret void
}

declare void @g()

define i64 @h(i64 %x) {
start:
  %0 = add i64 %x, 1
  br label %bb1

bb1:
  ret i64 %0
}
attributes #0 = { nounwind }
";

    #[test]
    fn counts_instructions_not_labels_debug_records_or_declarations() {
        let n = count(SAMPLE);
        assert_eq!(n.total, 21);
        assert_eq!(n.functions, 2);
        // f: ret; h: add, br, ret.
        assert_eq!(n.instructions, 4);
    }

    #[test]
    fn empty_input_counts_nothing() {
        assert_eq!(count(""), IrLines::default());
    }
}
