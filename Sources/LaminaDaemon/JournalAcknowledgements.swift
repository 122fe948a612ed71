import LaminaCompositor

/// Group commit for the session journal: what laminad tells a client after it changed a kept
/// session (the `applied` reply, and everything queued for it after that) waits until the
/// journal holds the change, so an acknowledged commit survives a `kill -9` the moment the
/// reply arrives.
///
/// A change holds the client's output from the byte it had reached (`hold`), until the
/// journal's generation at that change is written. Everything changed in a turn of the loop
/// goes out in one journal write; changes made while a write is on its way wait for the next,
/// which covers them all (`awaited`). When a write ends (`journalHolds`), each client's output
/// goes as far as its next hold, if it has one. Clients that changed nothing kept are never held.
struct JournalAcknowledgements {
    /// Output from byte `offset` of a client's stream waits until the journal holds `generation`.
    struct Hold: Equatable {
        var offset: Int
        var generation: UInt64
    }

    /// Each held client's holds, oldest first (offsets and generations increasing).
    private(set) var holds: [ClientID: [Hold]] = [:]
    /// Holds made since start (`stats sessionJournal.acknowledgementsHeld`).
    private(set) var held = 0

    /// From byte `offset` of its output on, `client` is sent nothing until the journal holds
    /// `generation`. A hold behind an earlier one of the same generation adds nothing.
    mutating func hold(_ client: ClientID, from offset: Int, until generation: UInt64) {
        if let last = holds[client]?.last, last.generation >= generation { return }
        holds[client, default: []].append(Hold(offset: offset, generation: generation))
        held += 1
    }

    /// The first byte of `client`'s output that may not be sent yet (nil: it may all go).
    func limit(of client: ClientID) -> Int? { holds[client]?.first?.offset }

    /// The newest generation a client waits for (nil: none waits): the next write must reach it.
    var awaited: UInt64? { holds.values.compactMap { $0.last?.generation }.max() }

    /// Clients held now.
    var waiting: Int { holds.count }

    /// The journal holds `generation` (or a write of it failed, logged and counted: the clients
    /// are not kept waiting on a disk that refuses). Returns each client whose output may now
    /// go further, with its new limit.
    mutating func journalHolds(_ generation: UInt64) -> [(client: ClientID, limit: Int?)] {
        var released: [(client: ClientID, limit: Int?)] = []
        for (client, list) in holds.sorted(by: { $0.key < $1.key }) {
            let rest = list.drop { $0.generation <= generation }
            guard rest.count < list.count else { continue }
            holds[client] = rest.isEmpty ? nil : Array(rest)
            released.append((client, rest.first?.offset))
        }
        return released
    }

    /// The client is gone: nothing of its is held any more.
    mutating func forget(_ client: ClientID) { holds[client] = nil }
}
