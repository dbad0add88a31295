//! Arbitrary bytes, decoded as the environment snapshot decodes them
//! (lossily), through every environment-value parser and the level
//! parsers: none may panic, and every refusal carries a reason.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    elide::__private::fuzz_env_value(&text);
    if let Err(e) = text.parse::<elide::LevelFilter>() {
        assert!(!e.to_string().is_empty());
    }
    let _ = text.parse::<elide::Level>();
});
