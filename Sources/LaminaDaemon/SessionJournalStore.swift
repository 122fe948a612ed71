#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import LaminaPlatform
import LaminaServer
import Logging

/// The kept-session journal on disk: a directory holding `index` (a `SessionJournal`) and one
/// file of pixels per image generation it names.
///
/// A write puts new image files first, then replaces the index atomically (write, fsync,
/// rename), then removes the files the index no longer names; a crash at any point leaves the
/// last whole index and every file it names. On start, a missing index means no sessions; a
/// torn or corrupt one is logged, set aside as `index.corrupt`, and laminad starts without it.
final class SessionJournalStore {
    let directory: String
    private let logger: Logger
    /// Unique to this process, so its image files never take the name of an older process's.
    private let filePrefix: String
    let bootID: String
    /// The compositor's `journalGeneration` when the index was last written.
    private(set) var writtenGeneration: UInt64?
    private(set) var writes = 0
    private(set) var lastWriteSeconds = 0.0
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
        writtenGeneration = compositor.journalGeneration
    }

    /// Writes the journal if the sessions changed since the last write.
    func writeIfChanged(_ compositor: Compositor) {
        guard writtenGeneration != compositor.journalGeneration else { return }
        let start = monotonicSeconds()
        let (journal, images) = compositor.journal(bootID: bootID, filePrefix: filePrefix)
        do {
            for image in images where !Files.exists(directory + "/" + image.file) {
                try Files.writeAtomically(directory + "/" + image.file, image.pixels())
            }
            try Files.writeAtomically(indexPath, journal.encoded())
        } catch {
            logger.error("writing the session journal: \(error)")
            return
        }
        writtenGeneration = compositor.journalGeneration
        let keep = Set(images.map(\.file) + ["index", "index.corrupt"])
        for name in (try? Files.list(directory)) ?? [] where !keep.contains(name) {
            Files.remove(directory + "/" + name)
        }
        writes += 1
        lastWriteSeconds = monotonicSeconds() - start
        logger.debug("session journal: \(journal.sessions.count) sessions, \(images.count) images, \(Int(lastWriteSeconds * 1_000_000)) µs")
    }
}
