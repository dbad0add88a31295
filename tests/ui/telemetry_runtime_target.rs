fn main() {
    let ns = String::from("my_app::db");
    elide::telemetry!(target: &ns, "task.start", uid = 1);
}
