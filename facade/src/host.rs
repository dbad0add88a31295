//! The host this process runs on, named and addressed the way radical.utils
//! reports it (the `.prof` `sync_abs` line; OTLP's `host.name`).

use std::fs;
#[cfg(feature = "prof")]
use std::net::{Ipv4Addr, UdpSocket};

/// The fully qualified host name, as radical.utils finds it: the `.prof`
/// `sync_abs` line's host and OTLP's `host.name`.
pub(crate) fn hostname() -> String {
    let short = short_hostname();
    match fs::read_to_string("/etc/hosts") {
        Ok(hosts) => fqdn_from_hosts(&short, &hosts).unwrap_or(short),
        Err(_) => short,
    }
}

/// What Python's `socket.getfqdn()` (radical.utils' `get_hostname`) finds
/// for `host` in an `/etc/hosts` text: on the first line that lists it, the
/// first dotted name (the canonical one, then the aliases), else the
/// canonical name.
fn fqdn_from_hosts(host: &str, hosts: &str) -> Option<String> {
    let names = hosts
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>())
        .find(|names| names.iter().any(|n| n.eq_ignore_ascii_case(host)))?;
    // The sync_abs message is split on `:` and the line on `,`.
    let usable = |n: &str| !n.contains([',', ':']);
    names
        .iter()
        .find(|n| usable(n) && n.contains('.'))
        .or_else(|| names.first().filter(|n| usable(n)))
        .map(|n| n.to_string())
}

fn short_hostname() -> String {
    for file in ["/proc/sys/kernel/hostname", "/etc/hostname"] {
        if let Ok(text) = fs::read_to_string(file) {
            let name: String = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
                .unwrap_or("")
                .chars()
                // The sync_abs message is split on `:`; keep it parseable.
                .filter(|c| !matches!(c, ',' | ':') && !c.is_control())
                .collect();
            if !name.is_empty() {
                return name;
            }
        }
    }
    "localhost".to_owned()
}

/// The local address of a UDP socket connected towards a documentation
/// address (192.0.2.1, never routed on the internet): connecting only asks
/// the kernel for a route, nothing is sent.
#[cfg(feature = "prof")]
pub(crate) fn outbound_ipv4() -> Option<Ipv4Addr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    match socket.local_addr().ok()?.ip() {
        std::net::IpAddr::V4(ip) if !ip.is_unspecified() => Some(ip),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fqdn_as_getfqdn_reads_etc_hosts() {
        let hosts = "127.0.0.1 localhost\n# 10.0.0.9 node01.old.org node01\n\
                     10.0.0.5\tnode01 node01.cluster.org node01.alt.org # main\n\
                     10.0.0.6 node02.cluster.org node02\n";
        assert_eq!(
            fqdn_from_hosts("node01", hosts).as_deref(),
            Some("node01.cluster.org")
        );
        assert_eq!(
            fqdn_from_hosts("node02", hosts).as_deref(),
            Some("node02.cluster.org")
        );
        assert_eq!(fqdn_from_hosts("node03", hosts), None);
        // No dotted name on its line: the canonical name, as getfqdn.
        assert_eq!(
            fqdn_from_hosts("localhost", hosts).as_deref(),
            Some("localhost")
        );
        let hosts = "10.0.0.7 n7 n7-alias\n";
        assert_eq!(fqdn_from_hosts("n7-alias", hosts).as_deref(), Some("n7"));
    }
}
