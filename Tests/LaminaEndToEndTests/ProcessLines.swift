import Foundation

/// A long-running process (`laminactl watch`, `laminactl apply --watch`) whose output lines are
/// collected as they come, so a test can wait for the line that shows an effect instead of
/// sleeping. Stopped with SIGTERM when the value goes away.
final class ProcessLines: @unchecked Sendable {
    let process = Process()
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var collected: [String] = []
    private var partial = Data()
    private var ended = false

    /// `directory`: the working directory; `environment`: variables set on top of this process's.
    init(_ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let handle = pipe.fileHandleForReading
        try process.run()
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty {
                    if !partial.isEmpty { collected.append(String(decoding: partial, as: UTF8.self)) }
                    ended = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                partial.append(chunk)
                while let nl = partial.firstIndex(of: UInt8(ascii: "\n")) {
                    collected.append(String(decoding: partial[partial.startIndex..<nl], as: UTF8.self))
                    partial.removeSubrange(partial.startIndex...nl)
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Every line so far.
    var lines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return collected
    }

    /// Waits until a line after the first `after` lines satisfies `match`, the output ends, or
    /// `timeout` seconds pass (a bound for a broken run, not a timing assumption); returns the
    /// line's index, or nil.
    func waitForLine(after: Int = 0, timeout: Double = 30, _ match: (String) -> Bool) -> Int? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = after
        while true {
            while checked < collected.count {
                if match(collected[checked]) { return checked }
                checked += 1
            }
            if ended || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Waits until the process's output ends (it exited, or closed it) or `timeout` seconds pass
    /// (a bound for a broken run, not a timing assumption); returns its exit status once it has
    /// exited, nil if its output never ended.
    func waitForExit(timeout: Double = 30) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while !ended {
            if !condition.wait(until: deadline) { break }
        }
        let done = ended
        condition.unlock()
        guard done else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the process to exit; returns its status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
