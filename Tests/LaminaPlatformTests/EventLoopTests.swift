import Glibc
import LaminaPlatform
import Testing

/// The order `EventLoop` runs things in, which laminad's frame scheduling and client I/O rely
/// on. Nothing here waits on the clock: timers are armed for 0 s (due at once), and a test
/// that would hang stops at a 10 s watchdog instead and fails.
@Suite("event loop")
struct EventLoopTests {
    /// Runs `loop` until something stops it; false when the watchdog had to.
    static func run(_ loop: EventLoop) throws -> Bool {
        var timedOut = false
        let watchdog = try LoopTimer(loop: loop) { [unowned loop] _ in
            timedOut = true
            loop.stop()
        }
        try watchdog.arm(after: 10)
        try loop.run()
        return !timedOut
    }

    /// A connected pair of Unix stream sockets.
    static func socketPair() throws -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        try retryingEINTR("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        return (FileDescriptor(owning: fds[0]), FileDescriptor(owning: fds[1]))
    }

    @Test func workQueuedBeforeRunRunsFirst() throws {
        let loop = try EventLoop()
        var ran = false
        loop.afterCurrentEvent { [unowned loop] in
            ran = true
            loop.stop()
        }
        #expect(try Self.run(loop), "run() should return without waiting")
        #expect(ran)
    }

    /// `afterCurrentEvent` runs once the callback has returned, and what it queues in turn runs
    /// too before the loop waits again (else this loop would wait until the watchdog).
    @Test func workAfterTheCurrentEventRunsBeforeTheLoopWaits() throws {
        let loop = try EventLoop()
        var order: [String] = []
        let timer = try LoopTimer(loop: loop) { [unowned loop] expirations in
            loop.afterCurrentEvent {
                order.append("after the event")
                loop.afterCurrentEvent {
                    order.append("queued by it")
                    loop.stop()
                }
            }
            order.append("timer \(expirations)")
        }
        try timer.arm(after: 0)
        #expect(try Self.run(loop))
        #expect(order == ["timer 1", "after the event", "queued by it"])
    }

    /// `nextTurn` work runs after the descriptors ready on that turn, and work that queues
    /// itself again takes turns with a descriptor that stays ready (level-triggered).
    @Test func nextTurnWorkTakesTurnsWithReadyDescriptors() throws {
        let loop = try EventLoop()
        let (readEnd, writeEnd) = try Self.socketPair()
        try writeEnd.writeAll([1])  // never read: readable on every turn
        var order: [String] = []
        try loop.add(readEnd.rawValue) { events in order.append(events.isReadable ? "readable" : "other") }
        var turns = 0
        func turn() {
            order.append("turn")
            turns += 1
            if turns < 3 { loop.nextTurn(turn) } else { loop.stop() }
        }
        loop.nextTurn(turn)
        #expect(try Self.run(loop))
        #expect(order == ["readable", "turn", "readable", "turn", "readable", "turn"])
        loop.remove(readEnd.rawValue)
    }

    /// A handler that removes another descriptor ready in the same batch keeps its handler
    /// from running (laminad drops a client while dispatching another's events).
    @Test func aDescriptorRemovedEarlierInTheBatchIsSkipped() throws {
        let loop = try EventLoop()
        let (a, aWrite) = try Self.socketPair()
        let (b, bWrite) = try Self.socketPair()
        try aWrite.writeAll([1])
        try bWrite.writeAll([1])
        var calls: [Int32] = []
        for (fd, other) in [(a.rawValue, b.rawValue), (b.rawValue, a.rawValue)] {
            try loop.add(fd) { [unowned loop] _ in
                calls.append(fd)
                loop.remove(other)
                loop.remove(fd)
                loop.afterCurrentEvent { loop.stop() }
            }
        }
        #expect(try Self.run(loop))
        #expect(calls.count == 1, "both handlers ran: \(calls)")
    }

    /// `modify` changes what a watched descriptor reports: a socket with nothing to read
    /// says nothing until it is watched for writing.
    @Test func modifyWatchesForWriting() throws {
        let loop = try EventLoop()
        let (socket, peer) = try Self.socketPair()
        var seen: [(readable: Bool, writable: Bool)] = []
        try loop.add(socket.rawValue, interest: .readable) { [unowned loop] events in
            seen.append((events.isReadable, events.isWritable))
            loop.stop()
        }
        let timer = try LoopTimer(loop: loop) { [unowned loop] _ in
            try? loop.modify(socket.rawValue, interest: .writable)
        }
        try timer.arm(after: 0)
        #expect(try Self.run(loop))
        #expect(seen.count == 1 && seen[0] == (false, true), "\(seen)")
        loop.remove(socket.rawValue)
        withExtendedLifetime(peer) {}
    }

    /// A peer that shuts its writing side is a hang-up, with the other direction still open;
    /// one that closes is dead: nothing more can be sent.
    @Test func halfAndWholeHangUps() throws {
        let loop = try EventLoop()
        let (socket, peer) = try Self.socketPair()
        var last: EventLoop.Events?
        try loop.add(socket.rawValue) { [unowned loop] events in
            last = events
            loop.stop()
        }
        shutdown(peer.rawValue, Int32(SHUT_WR))
        #expect(try Self.run(loop))
        #expect(last?.isReadable == true && last?.isHangup == true && last?.isDead == false)
        peer.close()
        last = nil
        #expect(try Self.run(loop))
        #expect(last?.isHangup == true && last?.isDead == true)
        loop.remove(socket.rawValue)
    }

    /// A one-shot timer fires once per arming, with one expiration, and can be armed again
    /// from its own handler.
    @Test func aOneShotTimerFiresOncePerArming() throws {
        let loop = try EventLoop()
        var expirations: [UInt64] = []
        var timer: LoopTimer?
        timer = try LoopTimer(loop: loop) { [unowned loop] count in
            expirations.append(count)
            if expirations.count < 3 { try? timer?.arm(after: 0) } else { loop.stop() }
        }
        try timer?.arm(after: 0)
        #expect(try Self.run(loop))
        #expect(expirations == [1, 1, 1])
        timer = nil
    }

    /// Disarmed and released timers never fire, though they were due before the one that
    /// stops the loop (a due timer would be in the same batch).
    @Test func disarmedAndReleasedTimersStaySilent() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        let disarmed = try LoopTimer(loop: loop) { _ in fired.append("disarmed") }
        var released: LoopTimer? = try LoopTimer(loop: loop) { _ in fired.append("released") }
        try disarmed.arm(after: 0)
        try released?.arm(after: 0)
        try disarmed.disarm()
        released = nil
        let last = try LoopTimer(loop: loop) { [unowned loop] _ in
            fired.append("last")
            loop.stop()
        }
        try last.arm(after: 0)
        #expect(try Self.run(loop))
        #expect(fired == ["last"])
        #expect(!disarmed.isArmed)
    }
}
