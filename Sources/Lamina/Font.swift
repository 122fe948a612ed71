import LaminaPlatform
import LaminaProtocol

extension Connection {
    /// Makes a font file available to text layers: laminad adds it to its fonts and answers
    /// with the families it provides; set a `TextLayer`'s `font` to one of them.
    ///
    /// ```swift
    /// let families = try await connection.registerFont(bytes: Array(try Data(contentsOf: url)))
    /// title.font = families[0]
    /// ```
    ///
    /// The bytes travel in a sealed memory file, as images do; laminad never opens a path of
    /// yours. It takes TrueType and OpenType files and collections, up to 32 MiB a font and
    /// 128 MiB for all registered fonts, and keeps them until it exits: registering the same
    /// bytes again is free. A font whose family is installed already is refused (a client
    /// cannot change the fonts of other clients' text). Needs a laminad of protocol 1.5.
    public func registerFont(bytes: [UInt8]) async throws -> [String] {
        guard !bytes.isEmpty else { throw LaminaError.invalidArgument("the font file is empty") }
        Transaction.flush()
        try await connected()
        guard serverMinorVersion >= 5 else {
            throw LaminaError.invalidArgument("laminad speaks protocol 1.\(serverMinorVersion); registering fonts needs 1.5")
        }
        let file: SharedMemoryFile
        do { file = try SharedMemoryFile(name: "lamina-font", byteCount: bytes.count) } catch {
            throw LaminaError.invalidArgument("cannot make a memory file for the font: \(error)")
        }
        bytes.withUnsafeBytes { file.base.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        let reply = try await channel.request(.registerFont(byteCount: UInt64(bytes.count)), descriptors: [file.fd.rawValue])
        withExtendedLifetime(file) {}
        guard case .fontRegistered(let families) = reply else {
            throw LaminaError.protocolViolation("laminad answered register-font with \(reply)")
        }
        return families
    }
}
