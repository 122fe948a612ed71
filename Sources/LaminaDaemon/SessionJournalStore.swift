#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import LaminaPlatform
import LaminaCompositor
import LaminaProtocol
import Logging
import Synchronization

/// The kept-session journal on disk: a directory holding `index` (a `SessionJournal`) and one
/// file of pixels per image generation it names.
///
/// A write puts new image files first, then replaces the index atomically (write, fsync,
/// rename, fsync of the directory), then removes the files the index no longer names; a crash
/// at any point leaves the last whole index and every file it names. In memory (tmpfs, as
/// /run is) there is nothing to fsync: only a power cut loses the file system, and with it the
/// journal whatever was synced. On start, a missing index means no sessions; a torn or corrupt
/// one is logged, set aside as `index.corrupt`, and laminad starts without it.
///
/// The journal is taken from the compositor on the loop thread (its bytes and the pixels of
/// new images), and written to disk on a thread of its own, so a slow disk's fsync never holds
/// a frame. One write is on its way at a time (`startWrite`); when it ends, the writer wakes
/// the loop (`onWritten`), which releases the acknowledgements it covers and starts the next
/// (group commit, `JournalAcknowledgements`). `flush` waits for the write on its way (at exit).
final class SessionJournalStore {
    let directory: String
    private let logger: Logger
    /// Unique to this process, so its image files never take the name of an older process's.
    private let filePrefix: String
    let bootID: String
    /// Whether writes are fsynced: not in memory (`Files.isInMemory`).
    let syncs: Bool
    /// What the writer thread has done, read by the loop thread.
    private final class Progress: Sendable {
        struct State {
            /// The compositor's `journalGeneration` of the index on disk.
            var durable: UInt64?
            var writes = 0
            var lastWriteSeconds = 0.0
            var failures = 0
            var sync = Files.SyncCost()
            var lastSyncSeconds = 0.0
            /// The write that ended, not yet seen by the loop: its generation and success.
            var ended: (generation: UInt64, succeeded: Bool)?
            var lastError: String?
        }
        let state = Mutex(State())
    }
    private let progress = Progress()
    private let writer = DispatchQueue(label: "lamina.session-journal")
    /// Wakes the loop when a write ends (set by the daemon, with its handler).
    var written: LoopWakeup?
    /// The generation of the write on its way (loop thread).
    private(set) var writing: UInt64?
    /// The generation last handed to the writer, and the files that write keeps; nil after a
    /// failed write, so the next one writes every file again.
    private var enqueued: UInt64?
    private var lastKeep: Set<String>?
    /// A write failed and was logged; the next success is logged too.
    private var failing = false
    /// The compositor's `journalGeneration` of the index on disk.
    var writtenGeneration: UInt64? { progress.state.withLock { $0.durable } }
    /// The largest index read back: sessions × layers is bounded by the kept-layer budget.
    static let indexLimit = 512 << 20

    init(directory: String, logger: Logger) throws(SystemError) {
        self.directory = directory
        self.logger = logger
        try Files.makeDirectory(directory)
        syncs = !Files.isInMemory(directory)
        filePrefix = "p\(getpid())t\(UInt64(monotonicSeconds() * 1000))"
        bootID = (try? Files.read("/proc/sys/kernel/random/boot_id", limit: 64))
            .map { String(decoding: $0, as: UTF8.self).filter { !$0.isWhitespace } } ?? ""
    }

    private var indexPath: String { directory + "/index" }

    /// Restores the journal's sessions into `compositor` (before any client connects).
    func restore(into compositor: Compositor) {
        let bytes: [UInt8]
        do {
            bytes = try Files.read(indexPath, limit: Self.indexLimit)
        } catch {
            if error.errno != ENOENT { logger.warning("session journal \(indexPath): \(error); starting without it") }
            return
        }
        let journal: SessionJournal
        do {
            journal = try SessionJournal.decode(bytes)
        } catch {
            logger.error("session journal \(indexPath) is unreadable: \(error); set aside as index.corrupt, starting without it")
            _ = rename(indexPath, indexPath + ".corrupt")
            return
        }
        let report = compositor.restore(journal, bootID: bootID, pixels: { [directory] image in
            guard let bytes = try? Files.read(directory + "/" + image.file, limit: image.byteCount),
                  bytes.count == image.byteCount else { return nil }
            return HeapPixelMemory(bytes)
        }, encodedFile: { [directory] image in
            guard let bytes = try? Files.read(directory + "/" + image.file, limit: Int(image.byteCount)),
                  bytes.count == Int(image.byteCount) else { return nil }
            return HeapPixelMemory(bytes)
        })
        for line in report { logger.notice("restored \(line)") }
        // What was restored is what the journal says: no rewrite is needed until it changes.
        let generation = compositor.journalGeneration
        progress.state.withLock { $0.durable = generation }
        enqueued = generation
    }

    /// Hands the journal to the writer thread if the sessions changed since the last write
    /// and no write is on its way. Returns whether a write started.
    @discardableResult
    func startWrite(_ compositor: Compositor) -> Bool {
        let generation = compositor.journalGeneration
        guard writing == nil, enqueued != generation else { return false }
        let start = monotonicSeconds()
        let (journal, images) = compositor.journal(bootID: bootID, filePrefix: filePrefix)
        let index = journal.encoded()
        // The pixels of images not on disk yet, copied now: the sources belong to this thread.
        let directory = directory
        // Not on disk once the writes before it are done: not kept by the last write (which
        // removes what it does not keep), or, after none or a failed one, not there now.
        let keep = Set(images.map(\.file) + ["index", "index.corrupt"]).union(OutputSettingsKeeper.files)
        let newImages = images.filter { image in
            lastKeep.map { !$0.contains(image.file) } ?? !Files.exists(directory + "/" + image.file)
        }.map { ($0.file, $0.pixels()) }
        lastKeep = keep
        let (sessions, imageCount) = (journal.sessions.count, images.count)
        let prepared = monotonicSeconds() - start
        enqueued = generation
        writing = generation
        let indexPath = indexPath, logger = logger, progress = progress, syncs = syncs, written = written
        writer.async {
            let start = monotonicSeconds()
            var cost = Files.SyncCost()
            do {
                for (file, pixels) in newImages {
                    try Files.writeAtomically(directory + "/" + file, pixels, sync: syncs, syncDirectory: false, cost: &cost)
                }
                // The images' names are durable before an index names them.
                if syncs, !newImages.isEmpty { Files.syncDirectory(of: indexPath, cost: &cost) }
                try Files.writeAtomically(indexPath, index, sync: syncs, syncDirectory: syncs, cost: &cost)
            } catch {
                logger.debug("writing the session journal: \(error)")
                progress.state.withLock {
                    $0.failures += 1
                    $0.ended = (generation, false)
                    $0.lastError = "\(error)"
                }
                written?.signal()
                return
            }
            for name in (try? Files.list(directory)) ?? [] where !keep.contains(name) {
                Files.remove(directory + "/" + name)
            }
            let seconds = prepared + monotonicSeconds() - start
            progress.state.withLock {
                $0.durable = generation
                $0.writes += 1
                $0.lastWriteSeconds = seconds
                $0.sync.calls += cost.calls
                $0.sync.seconds += cost.seconds
                $0.lastSyncSeconds = cost.seconds
                $0.ended = (generation, true)
            }
            written?.signal()
            logger.debug("session journal: \(sessions) sessions, \(imageCount) images, \(Int(prepared * 1_000_000)) µs on the loop, \(Int(seconds * 1_000_000)) µs in all, \(cost.calls) fsyncs in \(Int(cost.seconds * 1_000_000)) µs")
        }
        return true
    }

    /// The write on its way ended (on the loop, when `written` fires): its generation and
    /// whether it reached the disk; nil when none had ended. A failure is logged here, once
    /// until a write succeeds again, and the next write puts every file down again.
    func endWrite() -> (generation: UInt64, succeeded: Bool)? {
        guard let ended = progress.state.withLock({ state in defer { state.ended = nil }; return state.ended }) else { return nil }
        writing = nil
        if ended.succeeded {
            if failing { logger.notice("session journal \(directory): written again") }
            failing = false
        } else {
            enqueued = nil
            lastKeep = nil
            if !failing {
                let why = progress.state.withLock { $0.lastError } ?? "?"
                logger.error("writing the session journal \(directory): \(why); kept sessions' last changes would not survive a restart (retried at the next change; stats sessionJournal.failures)")
            }
            failing = true
        }
        return ended
    }

    /// Waits until the write on its way is done (at exit).
    func flush() { writer.sync {} }

    /// `stats`: writes, failures, whether and what fsync costs, the write on its way.
    func statistics(generation: UInt64) -> [Statistic] {
        let s = progress.state.withLock { $0 }
        return [
            Statistic(name: "sessionJournal.writes", value: Double(s.writes)),
            Statistic(name: "sessionJournal.pending", value: s.durable == generation ? 0 : 1),
            Statistic(name: "sessionJournal.lastWriteSeconds", value: s.lastWriteSeconds),
            Statistic(name: "sessionJournal.failures", value: Double(s.failures)),
            Statistic(name: "sessionJournal.fsync", value: syncs ? 1 : 0),
            Statistic(name: "sessionJournal.fsyncs", value: Double(s.sync.calls)),
            Statistic(name: "sessionJournal.fsyncSeconds", value: s.sync.seconds),
            Statistic(name: "sessionJournal.lastFsyncSeconds", value: s.lastSyncSeconds),
        ]
    }
}
