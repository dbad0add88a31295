//! The host this process runs on, named and addressed the way radical.utils
//! reports it (the `.prof` `sync_abs` line; OTLP's `host.name`).

use std::fs;
use std::net::IpAddr;
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
/// for `host` in an `/etc/hosts` text, as the C library's files lookup
/// answers `gethostbyaddr(host)`: the host name is resolved to its address
/// (the first line that lists it), and the address back to a line (the
/// *first* line for that address, which need not be the one listing `host`:
/// with `127.0.0.1 localhost` above `127.0.0.1 vm`, `vm` is `localhost`).
/// Of that line's names, the first dotted one (the canonical name, then the
/// aliases), else the canonical name. `None` when no line lists `host`
/// (`getfqdn` would then ask DNS).
fn fqdn_from_hosts(host: &str, hosts: &str) -> Option<String> {
    let lines = || hosts.lines().filter_map(hosts_line);
    let addr = match host.parse::<IpAddr>() {
        Ok(ip) => Addr::Ip(ip),
        Err(_) => {
            lines()
                .find(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(host)))?
                .0
        }
    };
    let (_, names) = lines().find(|(a, _)| *a == addr)?;
    // The sync_abs message is split on `:` and the line on `,`.
    let usable = |n: &str| !n.contains([',', ':']);
    names
        .iter()
        .find(|n| usable(n) && n.contains('.'))
        .or_else(|| names.first().filter(|n| usable(n)))
        .map(|n| n.to_string())
}

/// An `/etc/hosts` address: compared as an address when it parses as one
/// (`::1` is `0:0:0:0:0:0:0:1`), else as text.
#[derive(PartialEq)]
enum Addr<'a> {
    Ip(IpAddr),
    Text(&'a str),
}

/// One `/etc/hosts` line without its comment: the address and the names
/// (canonical first); `None` for a line without a name.
fn hosts_line(line: &str) -> Option<(Addr<'_>, Vec<&str>)> {
    let mut words = line.split('#').next().unwrap_or("").split_whitespace();
    let addr = words.next()?;
    let names: Vec<&str> = words.collect();
    if names.is_empty() {
        return None;
    }
    let addr = addr.parse().map_or(Addr::Text(addr), Addr::Ip);
    Some((addr, names))
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
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    let name = clean(line);
    (!name.is_empty()).then_some(name)
}

/// `name` without the characters that would break the sync_abs message
/// (`,`, `:`, control characters).
pub(crate) fn clean(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ',' | ':') && !c.is_control())
        .collect()
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

    /// `getfqdn` names the address, not the line that lists the host: the
    /// first line for the host's address decides (radical.utils writes
    /// `localhost` on a machine whose `/etc/hosts` is the one below).
    #[test]
    fn the_first_line_for_the_hosts_address_names_it() {
        let hosts = "127.0.0.1 localhost\n127.0.0.1 runsc\n127.0.0.1 vm\n";
        assert_eq!(fqdn_from_hosts("vm", hosts).as_deref(), Some("localhost"));
        // A dotted alias on the first line for the address wins; one on the
        // host's own later line does not.
        let hosts = "::1 ip6-localhost\n10.0.0.5 head head.cluster.org\n\
                     10.0.0.5 node01 node01.alt.org\n";
        assert_eq!(
            fqdn_from_hosts("node01", hosts).as_deref(),
            Some("head.cluster.org")
        );
        // Addresses compare as addresses, not as text.
        let hosts = "0:0:0:0:0:0:0:1 loop6 # long form\n::1 n6\n";
        assert_eq!(fqdn_from_hosts("n6", hosts).as_deref(), Some("loop6"));
        // The host given as an address is looked up directly.
        assert_eq!(fqdn_from_hosts("::1", hosts).as_deref(), Some("loop6"));
        // A line with an address only names nothing.
        let hosts = "10.0.0.9\n10.0.0.9 n9\n";
        assert_eq!(fqdn_from_hosts("n9", hosts).as_deref(), Some("n9"));
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
