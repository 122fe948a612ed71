import LaminaCore

/// Groups layer changes so they reach the screen together, in one frame, as
/// `CATransaction` does.
///
/// Every change belongs to a transaction. Without `begin()`, the first change opens an implicit
/// transaction that commits when the current stretch of main-actor code yields (Core
/// Animation's run-loop commit). `begin()`/`commit()` nest; changes become visible when the
/// outermost one commits.
@MainActor
public enum Transaction {
    private static var depth = 0
    private static var implicitScheduled = false
    private static var pending: [Connection] = []

    /// Opens an explicit transaction, nested in any open one.
    public static func begin() { depth += 1 }

    /// Closes the innermost explicit transaction; closing the outermost sends its changes.
    public static func commit() {
        guard depth > 0 else { flush(); return }
        depth -= 1
        if depth == 0 { flush() }
    }

    /// Commits the implicit transaction now (and any explicit ones are left open).
    public static func flush() {
        guard depth == 0 else { return }
        implicitScheduled = false
        let connections = pending
        pending.removeAll()
        for c in connections { c.commitPending() }
    }

    static func noteChange(on connection: Connection) {
        if !pending.contains(where: { $0 === connection }) { pending.append(connection) }
        guard depth == 0, !implicitScheduled else { return }
        implicitScheduled = true
        Task { @MainActor in
            if implicitScheduled { flush() }
        }
    }

    static func forget(_ connection: Connection) {
        pending.removeAll { $0 === connection }
    }
}
