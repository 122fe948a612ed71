/// Waits on the main actor, a millisecond at a time, until `condition` holds; false after
/// `timeout` seconds. For what the client library hands the main actor in tasks of its own
/// (events, delegate calls, completion blocks, display-link callbacks): their order against a
/// test's own continuation is not something a loaded machine keeps, so a round trip and a yield
/// are not enough. A slower machine only waits longer.
@MainActor
func eventually(timeout: Double = 30, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}
