import LaminaCore
import LaminaProtocol

/// Groups layer changes so they reach the screen together, in one frame, as
/// `CATransaction` does.
///
/// Every change belongs to a transaction. Without `begin()`, the first change opens an implicit
/// transaction that commits when the current stretch of main-actor code yields (Core
/// Animation's run-loop commit). `begin()`/`commit()` nest: a nested transaction inherits the
/// settings of the one around it, and its own settings do not leak out. Changes become visible
/// when the outermost transaction commits.
///
/// Transactions belong to the main actor, as Core Animation's belong to the main thread: an
/// explicit transaction left open across an `await` also gathers the changes that other
/// main-actor tasks make while it waits, and their implicit commits wait for it. Commit before
/// suspending.
///
/// ```swift
/// Transaction.begin()
/// Transaction.animationDuration = 2
/// Transaction.completionBlock = { print("faded") }
/// layer.opacity = 0            // laminad animates it over 2 s with the default curve
/// Transaction.commit()
/// ```
@MainActor
public enum Transaction {
    /// One open transaction's own settings (nil: inherited).
    final class Frame {
        var duration: Double?
        var timingFunction: TimingFunction??
        var disableActions: Bool?
        var completionGroup: UInt32?
        var values: [String: any Sendable] = [:]
    }

    private static var frames: [Frame] = []
    private static var implicitFrame: Frame?
    private static var pending: [Connection] = []
    private static var nextGroup: UInt32 = 1
    private static var completionBlocks: [UInt32: [@MainActor () -> Void]] = [:]
    /// Connections that still owe a `transactionCompleted` for a group.
    private static var outstanding: [UInt32: Int] = [:]

    /// Opens an explicit transaction, nested in any open one.
    public static func begin() {
        frames.append(Frame())
        if frames.count == 1, !suspensionCheckQueued { queueSuspensionCheck() }
    }

    /// Called when the code that opened an explicit transaction suspended (an `await`) or
    /// returned before committing it: what other main-actor tasks change meanwhile joins that
    /// transaction, under its settings, and their implicit commits wait for it. nil (the
    /// default) prints a warning to standard error, once.
    public static var openAcrossSuspension: (@MainActor () -> Void)?
    private static var warnedOpenAcrossSuspension = false
    private static var suspensionCheckQueued = false

    /// A task queued now runs only once the current stretch of main-actor code has suspended or
    /// returned: if a transaction is still open then, the code left it open across that point.
    /// (One check serves every outermost `begin()` of the stretch.)
    private static func queueSuspensionCheck() {
        suspensionCheckQueued = true
        Task { @MainActor in
            suspensionCheckQueued = false
            guard !frames.isEmpty else { return }
            if let handler = openAcrossSuspension {
                handler()
            } else if !warnedOpenAcrossSuspension {
                warnedOpenAcrossSuspension = true
                var stderr = StandardError()
                print("lamina: warning: an explicit Transaction was left open across an await (or a return); changes other tasks make meanwhile join it. Commit before suspending.", to: &stderr)
            }
        }
    }

    /// Closes the innermost explicit transaction; closing the outermost sends its changes.
    public static func commit() {
        guard let frame = frames.last else { flush(); return }
        close(frame, settings: currentSettings)
        frames.removeLast()
        if frames.isEmpty { flush() }
    }

    /// Commits the implicit transaction now, with everything pending (explicit transactions
    /// still open are left open and their changes wait for them).
    public static func flush() {
        guard frames.isEmpty else { return }
        // Core Animation lays out before it commits: what layout sets joins this commit.
        for c in pending { c.layOutMarkedLayers() }
        // Then displays the layers marked as needing it (`displayIfNeeded`).
        for c in pending { c.displayMarkedLayers() }
        if let f = implicitFrame { close(f, settings: currentSettings) }
        implicitFrame = nil
        let connections = pending
        pending.removeAll()
        for c in connections { c.commitPending() }
    }

    // MARK: Settings

    /// `animationDuration`: the duration of implicit animations, and of explicit ones added with
    /// a duration of 0. Default 0.25 s.
    public static var animationDuration: Double {
        get { resolve(\.duration) ?? TransactionSettings.default.duration }
        set { innermost.duration = newValue }
    }

    /// `animationTimingFunction`. nil (the default): implicit animations use the `default`
    /// curve (0.25, 0.1, 0.25, 1); explicit animations keep their own (nil is linear).
    public static var animationTimingFunction: TimingFunction? {
        get { resolve(\.timingFunction) ?? nil }
        set { innermost.timingFunction = .some(newValue) }
    }

    /// `disableActions`: property changes in this transaction do not animate.
    public static var disableActions: Bool {
        get { resolve(\.disableActions) ?? false }
        set { innermost.disableActions = newValue }
    }

    /// `completionBlock`: runs once on the main actor after every animation added in this
    /// transaction finished or was removed, never inside `commit`, and also when the
    /// transaction added no animations. Setting a second block adds it to the first. Reading
    /// returns nil (blocks are not kept as one value).
    public static var completionBlock: (@MainActor () -> Void)? {
        get { nil }
        set {
            guard let newValue else { return }
            let frame = innermost
            let group = frame.completionGroup ?? {
                let g = nextGroup
                nextGroup &+= 1
                frame.completionGroup = g
                return g
            }()
            completionBlocks[group, default: []].append(newValue)
        }
    }

    /// Arbitrary values by key, inherited by nested transactions (`valueForKey:`).
    public static func value(forKey key: String) -> (any Sendable)? {
        if let v = frames.reversed().lazy.compactMap({ $0.values[key] }).first { return v }
        return implicitFrame?.values[key]
    }

    /// `setValue:forKey:` on the innermost transaction.
    public static func setValue(_ value: (any Sendable)?, forKey key: String) {
        innermost.values[key] = value
    }

    /// The innermost open transaction, opening the implicit one if none is open.
    private static var innermost: Frame {
        if let f = frames.last { return f }
        if let f = implicitFrame { return f }
        let f = Frame()
        implicitFrame = f
        scheduleImplicitCommit()
        return f
    }

    private static func resolve<T>(_ field: KeyPath<Frame, T?>) -> T? {
        for f in frames.reversed() { if let v = f[keyPath: field] { return v } }
        return implicitFrame?[keyPath: field]
    }

    /// The settings in force now, as laminad needs them for the operations that follow.
    static var currentSettings: TransactionSettings {
        let groups = ([implicitFrame].compactMap { $0 } + frames).compactMap(\.completionGroup)
        return TransactionSettings(duration: animationDuration, timingFunction: animationTimingFunction,
                                   disableActions: disableActions, completionGroups: groups)
    }

    // MARK: Bookkeeping

    static func noteChange(on connection: Connection) {
        if !pending.contains(where: { $0 === connection }) { pending.append(connection) }
        if frames.isEmpty, implicitFrame == nil {
            implicitFrame = Frame()
            scheduleImplicitCommit()
        }
    }

    private static func scheduleImplicitCommit() {
        Task { @MainActor in
            if implicitFrame != nil || !pending.isEmpty { flush() }
        }
    }

    /// A transaction with a completion block closes: every connection it changed must report
    /// the group; with none, the blocks run on the next turn of the main actor.
    private static func close(_ frame: Frame, settings: TransactionSettings) {
        guard let group = frame.completionGroup else { return }
        var marked = 0
        for c in pending where c.markCompletion(settings) { marked += 1 }
        if marked == 0 {
            Task { @MainActor in runCompletion(group) }
        } else {
            outstanding[group] = marked
        }
    }

    /// A kept session was taken over: laminad reports its earlier client's completion groups to
    /// this process too, so new groups are numbered far from that client's (which count from 1).
    static func numberGroupsAwayFromEarlierClients() {
        if nextGroup < 0x8000_0000 { nextGroup = 0x8000_0000 | UInt32.random(in: 0...0x3FFF_FFFF) }
    }

    /// A connection reported that `group` completed.
    static func completionReported(_ group: UInt32) {
        guard let n = outstanding[group] else { return }
        if n <= 1 {
            outstanding[group] = nil
            runCompletion(group)
        } else {
            outstanding[group] = n - 1
        }
    }

    private static func runCompletion(_ group: UInt32) {
        for block in completionBlocks.removeValue(forKey: group) ?? [] { block() }
    }

    static func forget(_ connection: Connection) {
        pending.removeAll { $0 === connection }
    }
}
