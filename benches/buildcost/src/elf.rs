//! Sizes read straight from an ELF file: the `.text` section and the bytes
//! of the function symbols whose names contain a given crate name.
//!
//! Only 64-bit little-endian ELF (the machine's format) is read; anything
//! else is an error, never a guess.

use std::fmt;

/// What a release binary holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Size of the `.text` section in bytes (what `size -A` prints for it).
    pub text: u64,
    /// Every function symbol in `.symtab`: (mangled name, size in bytes).
    pub functions: Vec<(String, u64)>,
}

impl Image {
    /// Bytes of the functions whose mangled name contains `needle` (a crate
    /// name such as `crossbeam_channel`), and how many there are.
    pub fn code_of(&self, needle: &str) -> (usize, u64) {
        self.functions
            .iter()
            .filter(|(name, _)| name.contains(needle))
            .fold((0, 0), |(n, bytes), (_, size)| (n + 1, bytes + size))
    }
}

/// Why a file could not be read as ELF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfError(pub String);

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a readable ELF64 LE file: {}", self.0)
    }
}

const SHT_SYMTAB: u32 = 2;
const STT_FUNC: u8 = 2;

struct Section {
    name: u32,
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
}

fn bytes(data: &[u8], at: u64, len: u64) -> Result<&[u8], ElfError> {
    let start = usize::try_from(at).map_err(|_| ElfError("offset too large".into()))?;
    let len = usize::try_from(len).map_err(|_| ElfError("length too large".into()))?;
    data.get(start..start.saturating_add(len))
        .filter(|s| s.len() == len)
        .ok_or_else(|| ElfError(format!("range {start}+{len} beyond end of file")))
}

fn u16_at(d: &[u8], at: u64) -> Result<u16, ElfError> {
    Ok(u16::from_le_bytes(bytes(d, at, 2)?.try_into().unwrap()))
}
fn u32_at(d: &[u8], at: u64) -> Result<u32, ElfError> {
    Ok(u32::from_le_bytes(bytes(d, at, 4)?.try_into().unwrap()))
}
fn u64_at(d: &[u8], at: u64) -> Result<u64, ElfError> {
    Ok(u64::from_le_bytes(bytes(d, at, 8)?.try_into().unwrap()))
}

fn c_str(table: &[u8], at: u32) -> String {
    let tail = table.get(at as usize..).unwrap_or_default();
    let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
    String::from_utf8_lossy(&tail[..end]).into_owned()
}

/// Reads the section table (and the symbol table, if not stripped).
pub fn parse(data: &[u8]) -> Result<Image, ElfError> {
    if data.get(..4) != Some(b"\x7fELF") {
        return Err(ElfError("no ELF magic".into()));
    }
    if data.get(4) != Some(&2) || data.get(5) != Some(&1) {
        return Err(ElfError("not 64-bit little-endian".into()));
    }
    let shoff = u64_at(data, 0x28)?;
    let shentsize = u64::from(u16_at(data, 0x3A)?);
    let shnum = u64::from(u16_at(data, 0x3C)?);
    let shstrndx = u64::from(u16_at(data, 0x3E)?);
    if shentsize < 64 {
        return Err(ElfError(format!("section header size {shentsize}")));
    }
    let sections = (0..shnum)
        .map(|i| {
            let h = shoff + i * shentsize;
            Ok(Section {
                name: u32_at(data, h)?,
                kind: u32_at(data, h + 4)?,
                offset: u64_at(data, h + 0x18)?,
                size: u64_at(data, h + 0x20)?,
                link: u32_at(data, h + 0x28)?,
            })
        })
        .collect::<Result<Vec<_>, ElfError>>()?;
    let names = sections
        .get(shstrndx as usize)
        .ok_or_else(|| ElfError("no section-name table".into()))?;
    let names = bytes(data, names.offset, names.size)?;
    let text = sections
        .iter()
        .find(|s| c_str(names, s.name) == ".text")
        .ok_or_else(|| ElfError("no .text section".into()))?
        .size;

    let mut functions = Vec::new();
    if let Some(symtab) = sections.iter().find(|s| s.kind == SHT_SYMTAB) {
        let strtab = sections
            .get(symtab.link as usize)
            .ok_or_else(|| ElfError("symtab links to no string table".into()))?;
        let strings = bytes(data, strtab.offset, strtab.size)?;
        let table = bytes(data, symtab.offset, symtab.size)?;
        for entry in table.chunks_exact(24) {
            let info = entry[4];
            let size = u64::from_le_bytes(entry[16..24].try_into().unwrap());
            if info & 0xf == STT_FUNC && size > 0 {
                let name = u32::from_le_bytes(entry[0..4].try_into().unwrap());
                functions.push((c_str(strings, name), size));
            }
        }
    }
    Ok(Image { text, functions })
}

/// The crate a legacy-mangled Rust symbol belongs to, as far as its name
/// says: the first path segment (`_ZN5elide4sink...` -> `elide`), or for an
/// impl (`_ZN<n>_$LT$std..io..Stderr$u20$as$u20$...`) the crate of the
/// self type; for v0 mangling (`_R...Cs<hash>_5alloc...`, how the
/// prebuilt std names some symbols) the first crate root. `None` for
/// anything else (C symbols).
pub fn crate_of(symbol: &str) -> Option<&str> {
    if symbol.starts_with("_R") {
        return v0_first_crate(symbol);
    }
    let rest = symbol.strip_prefix("_ZN")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let first = rest.get(digits..digits + len)?;
    let first = first.strip_prefix("_$LT$").unwrap_or(first);
    let end = first
        .find("..")
        .or_else(|| first.find('$'))
        .unwrap_or(first.len());
    Some(&first[..end]).filter(|c| !c.is_empty())
}

/// First `Cs<disambiguator>_<len><name>` crate root of a v0 symbol.
fn v0_first_crate(symbol: &str) -> Option<&str> {
    let at = symbol.find("Cs")?;
    let after = &symbol[at + 2..];
    let ident = &after[after.find('_')? + 1..];
    let digits = ident.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = ident[..digits].parse().ok()?;
    ident.get(digits..digits + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 LE image: null section, .text (0x1234 bytes), a
    /// symtab with two functions and one object, its strtab, .shstrtab.
    fn tiny_elf() -> Vec<u8> {
        let shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0";
        let strtab = b"\0_ZN17crossbeam_channel4send17h0E\0_ZN4main4main17h1E\0DATA\0";
        let sym = |name: u32, info: u8, size: u64| {
            let mut e = Vec::new();
            e.extend_from_slice(&name.to_le_bytes());
            e.push(info);
            e.push(0);
            e.extend_from_slice(&1u16.to_le_bytes());
            e.extend_from_slice(&0u64.to_le_bytes());
            e.extend_from_slice(&size.to_le_bytes());
            e
        };
        let mut symtab = vec![0u8; 24];
        symtab.extend(sym(1, 0x12, 300)); // GLOBAL FUNC crossbeam
        symtab.extend(sym(34, 0x02, 40)); // LOCAL FUNC main
        symtab.extend(sym(53, 0x11, 999)); // GLOBAL OBJECT: not code

        let mut file = vec![0u8; 64];
        let strtab_at = file.len() as u64;
        file.extend_from_slice(strtab);
        let symtab_at = file.len() as u64;
        file.extend_from_slice(&symtab);
        let shstr_at = file.len() as u64;
        file.extend_from_slice(shstr);
        let shoff = file.len() as u64;
        let header = |name: u32, kind: u32, offset: u64, size: u64, link: u32| {
            let mut h = vec![0u8; 64];
            h[0..4].copy_from_slice(&name.to_le_bytes());
            h[4..8].copy_from_slice(&kind.to_le_bytes());
            h[0x18..0x20].copy_from_slice(&offset.to_le_bytes());
            h[0x20..0x28].copy_from_slice(&size.to_le_bytes());
            h[0x28..0x2C].copy_from_slice(&link.to_le_bytes());
            h
        };
        file.extend(header(0, 0, 0, 0, 0));
        file.extend(header(1, 1, 0, 0x1234, 0)); // .text (NOBITS-like: no data needed)
        file.extend(header(7, 2, symtab_at, symtab.len() as u64, 3));
        file.extend(header(15, 3, strtab_at, strtab.len() as u64, 0));
        file.extend(header(23, 3, shstr_at, shstr.len() as u64, 0));
        file[0..4].copy_from_slice(b"\x7fELF");
        file[4] = 2;
        file[5] = 1;
        file[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        file[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
        file[0x3C..0x3E].copy_from_slice(&5u16.to_le_bytes());
        file[0x3E..0x40].copy_from_slice(&4u16.to_le_bytes());
        file
    }

    #[test]
    fn reads_text_size_and_function_symbols() {
        let image = parse(&tiny_elf()).unwrap();
        assert_eq!(image.text, 0x1234);
        assert_eq!(
            image.functions,
            [
                ("_ZN17crossbeam_channel4send17h0E".to_string(), 300),
                ("_ZN4main4main17h1E".to_string(), 40)
            ]
        );
        assert_eq!(image.code_of("crossbeam_channel"), (1, 300));
        assert_eq!(image.code_of("elide"), (0, 0));
    }

    #[test]
    fn crate_of_plain_paths_and_impls() {
        assert_eq!(
            crate_of("_ZN5elide4sink7console4emit17h0123456789abcdefE"),
            Some("elide")
        );
        assert_eq!(
            crate_of(
                "_ZN60_$LT$std..io..stdio..StderrLock$u20$as$u20$std..io..Write$GT$5write17h0E"
            ),
            Some("std")
        );
        assert_eq!(crate_of("_ZN4core3fmt5write17h0E"), Some("core"));
        assert_eq!(
            crate_of(
                "_RNvXs3_NtNtNtCsjrHSEGnQ3l9_3std3sys5stdio4unixNtB5_6StderrNtNtBb_2io5Write5flush"
            ),
            Some("std")
        );
        assert_eq!(crate_of("memcpy"), None);
        assert_eq!(crate_of("_ZN99short"), None);
    }

    #[test]
    fn truncated_or_foreign_files_are_errors_not_panics() {
        let elf = tiny_elf();
        // The last cut falls inside the last section header's offset field.
        for cut in [0, 3, 16, 0x40, elf.len() - 50] {
            assert!(parse(&elf[..cut]).is_err(), "cut at {cut}");
        }
        let mut big_endian = elf.clone();
        big_endian[5] = 2;
        assert!(parse(&big_endian).is_err());
    }

    #[test]
    fn agrees_with_size_on_this_test_binary() {
        // Cross-check with binutils' `size -A` when it is installed.
        let exe = std::env::current_exe().unwrap();
        let Ok(out) = std::process::Command::new("size")
            .arg("-A")
            .arg(&exe)
            .output()
        else {
            return;
        };
        let listing = String::from_utf8_lossy(&out.stdout);
        let from_size: u64 = listing
            .lines()
            .find_map(|l| l.strip_prefix(".text "))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("size -A lists .text");
        let image = parse(&std::fs::read(&exe).unwrap()).unwrap();
        assert_eq!(image.text, from_size);
        assert!(!image.functions.is_empty());
    }
}
