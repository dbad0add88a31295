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
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .into_iter()
        .find_map(|file| hostname_in(&fs::read_to_string(file).ok()?))
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The host name a hostname file gives: its first line that is neither
/// empty nor a comment, trimmed, without the characters that would break
/// the sync_abs message (`,`, `:`, control characters); `None` if that
/// leaves nothing.
fn hostname_in(text: &str) -> Option<String> {
    let name: String = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?
        .chars()
        .filter(|c| !matches!(c, ',' | ':') && !c.is_control())
        .collect();
    (!name.is_empty()).then_some(name)
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

    #[test]
    fn a_hostname_file_gives_its_first_real_line_cleaned() {
        assert_eq!(hostname_in("node01\n").as_deref(), Some("node01"));
        assert_eq!(
            hostname_in("\n# set by cloud-init\n  node02  \nother\n").as_deref(),
            Some("node02")
        );
        assert_eq!(hostname_in("no,de:03\u{7}\n").as_deref(), Some("node03"));
        assert_eq!(hostname_in(",:\n"), None, "nothing left");
        assert_eq!(hostname_in("# only a comment\n\n"), None);
    }

    /// This machine's names, as the files say.
    #[test]
    fn the_hostname_is_the_kernels_completed_from_etc_hosts() {
        let kernel = fs::read_to_string("/proc/sys/kernel/hostname").ok();
        let Some(short) = kernel.as_deref().and_then(hostname_in) else {
            return; // not Linux: nothing to compare against
        };
        assert_eq!(short_hostname(), short);
        let hosts = fs::read_to_string("/etc/hosts").unwrap_or_default();
        assert_eq!(hostname(), fqdn_from_hosts(&short, &hosts).unwrap_or(short));
    }

    /// With a default route (this machine's `/proc/net/route` lists one),
    /// the outbound address is a specified one this host can bind.
    #[cfg(feature = "prof")]
    #[test]
    fn the_outbound_address_is_a_local_one_when_there_is_a_route() {
        let routes = fs::read_to_string("/proc/net/route").unwrap_or_default();
        let default_route = routes
            .lines()
            .skip(1)
            .any(|l| l.split_whitespace().nth(1) == Some("00000000"));
        match outbound_ipv4() {
            Some(ip) => {
                assert!(!ip.is_unspecified());
                assert!(UdpSocket::bind((ip, 0)).is_ok(), "{ip} is not local");
            }
            None => assert!(!default_route, "a default route, but no address"),
        }
    }
}
