//! Facts about a crate's dependency graph, from `cargo tree` output.

use std::collections::BTreeSet;

/// What `cargo tree -e normal,build --prefix none` says about a graph.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Graph {
    /// Every distinct (name, version) built for the crate, itself included.
    pub packages: BTreeSet<(String, String)>,
}

impl Graph {
    /// Parses lines such as `syn v2.0.119` or `elide v0.1.0 (/path) (*)`.
    pub fn parse(tree: &str) -> Graph {
        let packages = tree
            .lines()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let name = words.next()?;
                let version = words.next()?.strip_prefix('v')?;
                Some((name.to_string(), version.to_string()))
            })
            .collect();
        Graph { packages }
    }

    /// The versions of package `name` in the graph.
    pub fn versions(&self, name: &str) -> Vec<&str> {
        self.packages
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_versions_once_each() {
        let tree = "bc_elide_n1 v0.0.0 (/tmp/x)\n\
                    elide v0.1.0 (/w/facade)\n\
                    elide-macros v0.1.0 (proc-macro) (/w/facade-macros)\n\
                    syn v2.0.119\n\
                    linkme-impl v0.3.35 (proc-macro)\n\
                    syn v3.0.10\n\
                    syn v2.0.119 (*)\n\
                    \n";
        let g = Graph::parse(tree);
        assert_eq!(g.versions("syn"), ["2.0.119", "3.0.10"]);
        assert_eq!(g.versions("crossbeam-channel"), Vec::<&str>::new());
        assert_eq!(g.packages.len(), 6);
    }
}
