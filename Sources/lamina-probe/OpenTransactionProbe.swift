import Lamina

/// `lamina-probe open-transaction`: whether `Transaction.openAcrossSuspension` reports a
/// transaction left open across an `await`, and stays quiet about one committed before the code
/// suspends. Run in a process of its own: while a transaction is held open across an await, every
/// other main-actor task's implicit commits wait for it, which would disturb the tests that run
/// beside it in the test process. Prints `committed first: N, left open: M` (expected 0 and 1).
@MainActor func runOpenTransactionProbe() async -> String {
    var reports = 0
    Transaction.openAcrossSuspension = { reports += 1 }
    defer { Transaction.openAcrossSuspension = nil }
    Transaction.begin()
    Transaction.commit()
    for _ in 0..<5 { await Task.yield() }
    let committedFirst = reports
    Transaction.begin()
    Transaction.begin()
    Transaction.commit()
    for _ in 0..<20 where reports == committedFirst { await Task.yield() }
    Transaction.commit()
    return "committed first: \(committedFirst), left open: \(reports - committedFirst)"
}
