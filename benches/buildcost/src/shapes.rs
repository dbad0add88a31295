//! Like-for-like build cost: the same call written with each library, with
//! the same format arguments and the same fields (`log` with its `kv`
//! feature), one crate of N functions per (shape, library), one site each.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::generate::Lib;

/// One kind of site, written the same way for every library.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The row's label.
    pub label: &'static str,
    /// elide's and tracing's site (`{k}` is the function number).
    pub elide: &'static str,
    /// log's site, with key-values through `kv`.
    pub log: &'static str,
}

/// The four shapes, in table order.
pub const SHAPES: [Shape; 4] = [
    Shape {
        label: "info!(\"task {} step {} #k\", id, k)",
        elide: "info!(\"task {} step {} #{k}\", id, k);",
        log: "info!(\"task {} step {} #{k}\", id, k);",
    },
    Shape {
        label: "info!(uid = id, n = k, \"task {} step {} #k\", id, k)",
        elide: "info!(uid = id, n = k, \"task {} step {} #{k}\", id, k);",
        log: "info!(uid = id, n = k; \"task {} step {} #{k}\", id, k);",
    },
    Shape {
        label: "info!(uid = %id, \"task {} #k\", k)",
        elide: "info!(uid = %id, \"task {} #{k}\", k);",
        log: "info!(uid:% = id; \"task {} #{k}\", k);",
    },
    Shape {
        label: "info!(\"task started #k\")",
        elide: "info!(\"task started #{k}\");",
        log: "info!(\"task started #{k}\");",
    },
];

/// The scratch crate of one library: the same directory for every shape,
/// so its dependencies are built once.
pub fn dir(work: &Path, lib: Lib, n: usize) -> PathBuf {
    work.join(format!("shape-{}-n{n}", lib.name()))
}

/// Package and library name.
pub fn package(lib: Lib, n: usize) -> String {
    format!("bc_shape_{}_n{n}", lib.name())
}

/// Cargo.toml: `log` with `kv`, so it can carry the same fields.
pub fn manifest(lib: Lib, n: usize, facade: &Path) -> String {
    let dep = match lib {
        Lib::None => String::new(),
        Lib::Elide => format!("elide = {{ path = {:?} }}\n", facade.display().to_string()),
        Lib::Log => "log = { version = \"0.4\", features = [\"kv\"] }\n".into(),
        Lib::Tracing => "tracing = \"0.1\"\n".into(),
    };
    format!(
        "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\n{dep}\n[workspace]\n",
        package(lib, n)
    )
}

/// `n` functions `task_k(us) -> u64` with one site of `shape` each (none
/// for [`Lib::None`], the baseline the per-site figures subtract).
pub fn library_source(shape: &Shape, lib: Lib, n: usize) -> String {
    let mut s = String::with_capacity(n * 160);
    if lib != Lib::None {
        let _ = writeln!(s, "use {}::info;", lib.name());
    }
    for k in 0..n {
        let _ = writeln!(
            s,
            "\n#[inline(never)]\npub fn task_{k}(us: u64) -> u64 {{\n    let id: u64 = us;\n    let k: u64 = {k};"
        );
        let site = match lib {
            Lib::None => "",
            Lib::Log => shape.log,
            Lib::Elide | Lib::Tracing => shape.elide,
        };
        let _ = writeln!(s, "    {}", site.replace("{k}", &k.to_string()));
        s.push_str("    id ^ k\n}\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_gets_the_same_arguments_and_fields_with_kv_syntax() {
        let src = library_source(&SHAPES[1], Lib::Log, 2);
        assert!(src.contains("info!(uid = id, n = k; \"task {} step {} #1\", id, k);"));
        let elide = library_source(&SHAPES[1], Lib::Elide, 2);
        assert!(elide.contains("info!(uid = id, n = k, \"task {} step {} #1\", id, k);"));
        assert!(!library_source(&SHAPES[1], Lib::None, 2).contains("info!"));
    }
}
