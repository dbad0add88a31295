// Something that is no field and no message where a field or the message
// goes: one error saying what does go there.
fn main() {
    elide::warn!(= 3, "x");
    elide::warn!(3: 4, "x");
}
