#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import Logging

/// libwayland-server's and wlroots' log lines (a protocol error that drops a client, a buffer
/// wlroots could not wrap) go to laminad's log, prefixed "wayland:". Both libraries take one
/// process-wide C function; it reads this logger.
enum WaylandLog {
    nonisolated(unsafe) static var logger: Logger?

    static func install(_ logger: Logger) {
        Self.logger = logger
        wl_log_set_handler_server { format, args in
            WaylandLog.write(.warning, format, args)
        }
        wlr_log_init(WLR_ERROR) { importance, format, args in
            WaylandLog.write(importance == WLR_ERROR ? .error : .debug, format, args)
        }
    }

    private static func write(_ level: Logger.Level, _ format: UnsafePointer<CChar>?, _ args: CVaListPointer?) {
        guard let format, let args, let logger else { return }
        var line = [CChar](repeating: 0, count: 1024)
        _ = vsnprintf(&line, line.count, format, args)
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        logger.log(level: level, "wayland: \(text.hasSuffix("\n") ? String(text.dropLast()) : text)")
    }
}
