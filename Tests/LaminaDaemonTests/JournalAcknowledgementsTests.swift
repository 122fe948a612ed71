import Testing
import LaminaCompositor
@testable import LaminaDaemon

/// Group commit's order (`JournalAcknowledgements`): a client's output stops at the byte where
/// a change to a kept session was acknowledged, until the journal holds that change; one
/// write covers every hold made before it; a later hold of the same client keeps its later
/// bytes back after an earlier write frees the earlier ones; other clients never wait.
@Suite("Journal acknowledgements (group commit)")
struct JournalAcknowledgementsTests {
    let a = ClientID(rawValue: 1), b = ClientID(rawValue: 2), c = ClientID(rawValue: 3)

    @Test func aClientWaitsFromItsAcknowledgementUntilTheJournalHoldsIt() {
        var acks = JournalAcknowledgements()
        #expect(acks.limit(of: a) == nil && acks.awaited == nil && acks.waiting == 0)
        // a's commit in generation 4: its applied reply would be byte 120 on.
        acks.hold(a, from: 120, until: 4)
        #expect(acks.limit(of: a) == 120)
        #expect(acks.limit(of: c) == nil, "a client that changed nothing kept is never held")
        #expect(acks.awaited == 4 && acks.waiting == 1 && acks.held == 1)
        // A write of an older generation (on its way before the commit) frees nothing.
        #expect(acks.journalHolds(3).isEmpty)
        #expect(acks.limit(of: a) == 120)
        let released = acks.journalHolds(4)
        #expect(released.map(\.client) == [a] && released.first?.limit == nil)
        #expect(acks.limit(of: a) == nil && acks.awaited == nil && acks.waiting == 0)
    }

    @Test func oneWriteReleasesEveryCommitOfItsTurn() {
        var acks = JournalAcknowledgements()
        // Three commits in one turn of the loop: generations 7, 8, 9; a committed twice.
        acks.hold(a, from: 10, until: 7)
        acks.hold(b, from: 0, until: 8)
        acks.hold(a, from: 50, until: 9)
        #expect(acks.awaited == 9, "the turn's write must reach the newest")
        #expect(acks.limit(of: a) == 10, "a's first reply stops its output; what follows waits behind it")
        // The one write at the end of the turn holds generation 9: everyone goes, in full.
        let released = acks.journalHolds(9)
        #expect(released.map(\.client) == [a, b])
        #expect(released.allSatisfy { $0.limit == nil })
        #expect(acks.waiting == 0)
    }

    @Test func aCommitMadeWhileAWriteIsOnItsWayWaitsForTheNext() {
        var acks = JournalAcknowledgements()
        acks.hold(a, from: 10, until: 7)
        // The write of generation 7 is on its way; a commits again (8), b commits (8).
        acks.hold(a, from: 40, until: 8)
        acks.hold(b, from: 5, until: 8)
        let first = acks.journalHolds(7)
        #expect(first.map(\.client) == [a] && first.first?.limit == 40,
                "a's first reply and what followed it up to its second reply go; the second waits")
        #expect(acks.limit(of: b) == 5 && acks.awaited == 8, "the next write must cover the commits made meanwhile")
        let second = acks.journalHolds(8)
        #expect(second.map(\.client) == [a, b] && second.allSatisfy { $0.limit == nil })
    }

    @Test func aHoldBehindOneOfTheSameGenerationAddsNothing() {
        var acks = JournalAcknowledgements()
        acks.hold(a, from: 10, until: 7)
        acks.hold(a, from: 30, until: 7)
        #expect(acks.holds[a] == [.init(offset: 10, generation: 7)] && acks.held == 1)
    }

    @Test func aClientThatLeftIsForgotten() {
        var acks = JournalAcknowledgements()
        acks.hold(a, from: 10, until: 7)
        acks.hold(b, from: 10, until: 8)
        acks.forget(b)
        #expect(acks.awaited == 7 && acks.waiting == 1)
        #expect(acks.journalHolds(8).map(\.client) == [a])
    }
}
