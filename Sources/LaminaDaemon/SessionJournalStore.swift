#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import LaminaPlatform
import LaminaCompositor
import Logging
import Synchronization

/// The kept-session journal on disk: a directory holding `index` (a `SessionJournal`) and one
/// file of pixels per image generation it names.
///
/// A write puts new image files first, then replaces the index atomically (write, fsync,
/// rename), then removes the files the index no longer names; a crash at any point leaves the
/// last whole index and every file it names. On start, a missing index means no sessions; a
/// torn or corrupt one is logged, set aside as `index.corrupt`, and laminad starts without it.
///
/// The journal is taken from the compositor on the loop thread (its bytes and the pixels of
/// new images), and written to disk on a thread of its own, so a slow disk's fsync never holds
/// a frame. Writes happen in order; `flush` waits for them (at exit).
final class SessionJournalStore {
    let directory: String
    private let logger: Logger
    /// Unique to this process, so its image files never take the name of an older process's.
    private let filePrefix: String
    let bootID: String
    /// What the writer thread has done, read by the loop thread.
    private final class Progress: Sendable {
        struct State {
            /// The compositor's `journalGeneration` of the index on disk.
            var durable: UInt64?
            var writes = 0
            var lastWriteSeconds = 0.0
            /// The last write failed: the next `writeIfChanged` tries again.
            var failed = false
        }
        let state = Mutex(State())
    }
    private let progress = Progress()
    private let writer = DispatchQueue(label: "lamina.session-journal")
    /// The generation last handed to the writer, and the files that write keeps.
    private var enqueued: UInt64?
    private var lastKeep: Set<String>?
    /// The compositor's `journalGeneration` of the index on disk.
    var writtenGeneration: UInt64? { progress.state.withLock { $0.durable } }
    var writes: Int { progress.state.withLock { $0.writes } }
    var lastWriteSeconds: Double { progress.state.withLock { $0.lastWriteSeconds } }
    /// The largest index read back: sessions × layers is bounded by the kept-layer budget.
    static let indexLimit = 512 << 20

    init(directory: String, logger: Logger) throws(SystemError) {
        self.directory = directory
        self.logger = logger
        try Files.makeDirectory(directory)
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
        let report = compositor.restore(journal, bootID: bootID) { [directory] image in
            guard let bytes = try? Files.read(directory + "/" + image.file, limit: image.byteCount),
                  bytes.count == image.byteCount else { return nil }
            return HeapPixelMemory(bytes)
        }
        for line in report { logger.notice("restored \(line)") }
        // What was restored is what the journal says: no rewrite is needed until it changes.
        let generation = compositor.journalGeneration
        progress.state.withLock { $0.durable = generation }
        enqueued = generation
    }

    /// Writes the journal if the sessions changed since the last write (on the writer thread).
    func writeIfChanged(_ compositor: Compositor) {
        if progress.state.withLock({ state in defer { state.failed = false }; return state.failed }) {
            enqueued = nil
            lastKeep = nil
        }
        let generation = compositor.journalGeneration
        guard enqueued != generation else { return }
        let start = monotonicSeconds()
        let (journal, images) = compositor.journal(bootID: bootID, filePrefix: filePrefix)
        let index = journal.encoded()
        // The pixels of images not on disk yet, copied now: the sources belong to this thread.
        let directory = directory
        // Not on disk once the writes before it are done: not kept by the last write handed
        // over (which removes what it does not keep), or, with none, not there now.
        let keep = Set(images.map(\.file) + ["index", "index.corrupt"]).union(OutputSettingsKeeper.files)
        let newImages = images.filter { image in
            lastKeep.map { !$0.contains(image.file) } ?? !Files.exists(directory + "/" + image.file)
        }.map { ($0.file, $0.pixels()) }
        lastKeep = keep
        let (sessions, imageCount) = (journal.sessions.count, images.count)
        let prepared = monotonicSeconds() - start
        enqueued = generation
        let indexPath = indexPath, logger = logger, progress = progress
        writer.async {
            let start = monotonicSeconds()
            do {
                for (file, pixels) in newImages { try Files.writeAtomically(directory + "/" + file, pixels) }
                try Files.writeAtomically(indexPath, index)
            } catch {
                logger.error("writing the session journal: \(error)")
                progress.state.withLock { $0.failed = true }
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
            }
            logger.debug("session journal: \(sessions) sessions, \(imageCount) images, \(Int(prepared * 1_000_000)) µs on the loop, \(Int(seconds * 1_000_000)) µs in all")
        }
    }

    /// Waits until every write handed to the writer is done (at exit).
    func flush() { writer.sync {} }
}
