//! Counting LLVM IR: how much code a crate hands to the backend.

/// Line counts of one or more `.ll` files.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct IrLines {
    /// Every line of the file(s).
    pub total: u64,
    /// Lines inside function definitions (`define ... {` to `}`), the
    /// quantity `cargo llvm-lines` sums; declarations, globals, metadata
    /// and attributes are left out.
    pub in_functions: u64,
    /// Number of function definitions.
    pub functions: u64,
}

impl std::ops::AddAssign for IrLines {
    fn add_assign(&mut self, o: Self) {
        self.total += o.total;
        self.in_functions += o.in_functions;
        self.functions += o.functions;
    }
}

/// Counts the lines of one `.ll` text.
pub fn count(ll: &str) -> IrLines {
    let mut n = IrLines::default();
    let mut inside = false;
    for line in ll.lines() {
        n.total += 1;
        if inside {
            n.in_functions += 1;
            if line == "}" {
                inside = false;
            }
        } else if line.starts_with("define ") {
            n.functions += 1;
            n.in_functions += 1;
            // A body-less `define` cannot exist, but one-line oddities must
            // not swallow the rest of the file.
            inside = line.trim_end().ends_with('{');
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
  ret void
}

declare void @g()

define i64 @h(i64 %x) {
start:
  %0 = add i64 %x, 1
  ret i64 %0
}
attributes #0 = { nounwind }
";

    #[test]
    fn counts_function_bodies_apart_from_declarations_and_globals() {
        let n = count(SAMPLE);
        assert_eq!(n.total, 17);
        assert_eq!(n.functions, 2);
        // f: define, label, ret, } = 4; h: define, label, add, ret, } = 5.
        assert_eq!(n.in_functions, 9);
    }

    #[test]
    fn empty_input_counts_nothing() {
        assert_eq!(count(""), IrLines::default());
    }
}
