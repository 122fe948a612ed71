import ArgumentParser
import Foundation
import Lamina
import LaminaScene

/// laminactl's exit statuses, after BSD's sysexits.h, so scripts can tell a typo in the command
/// from a bad scene file from a daemon that is not running.
enum ExitStatus {
    /// EX_USAGE: the command line is wrong (swift-argument-parser prints the usage).
    static let usage: Int32 = 64
    /// EX_DATAERR: the input is wrong: a scene file, an image, a value, or laminad refused it.
    static let dataError: Int32 = 65
    /// EX_UNAVAILABLE: no laminad answered, or it went away.
    static let unavailable: Int32 = 69
    /// EX_SOFTWARE: something that should not happen (a bug in laminactl or laminad).
    static let software: Int32 = 70
    /// EX_IOERR: an output file could not be written.
    static let ioError: Int32 = 74
    /// EX_PROTOCOL: laminad sent something laminactl does not understand (a version mismatch).
    static let protocolError: Int32 = 76

    /// The help text's table.
    static let help = """
        Exit status: 0 done; 64 wrong usage (the usage is printed); 65 bad input (a scene file, \
        an image, a value, or laminad refused the change); 69 laminad unavailable (not running, \
        or went away; the sockets tried are named); 70 internal error; 74 an output file could \
        not be written; 76 a protocol mismatch with laminad.
        """
}

/// An error laminactl reports by itself (no usage text), with its exit status.
struct CommandFailure: Error, CustomStringConvertible {
    var status: Int32
    var message: String
    init(_ status: Int32, _ message: String) { self.status = status; self.message = message }
    var description: String { message }

    /// How `error` is reported, or nil for the argument parser's own (usage, help, `ExitCode`).
    static func classify(_ error: any Error) -> CommandFailure? {
        switch error {
        case let f as CommandFailure: return f
        case is ValidationError, is CleanExit, is ExitCode: return nil
        case let e as LaminaError:
            switch e {
            case .connectionFailed, .connectionClosed: return CommandFailure(ExitStatus.unavailable, e.description)
            case .server, .invalidArgument: return CommandFailure(ExitStatus.dataError, e.description)
            case .protocolViolation: return CommandFailure(ExitStatus.protocolError, e.description)
            }
        case let e as SceneError: return CommandFailure(ExitStatus.dataError, e.description)
        // The parser's internal errors (a help request is thrown from a help command's run).
        case _ where String(reflecting: type(of: error)).hasPrefix("ArgumentParser."): return nil
        default: return CommandFailure(ExitStatus.software, "\(error)")
        }
    }
}

extension Laminactl {
    /// Parses and runs like `AsyncParsableCommand.main`, but reports data errors alone (no
    /// usage text) with their own exit status; usage errors still go to the argument parser.
    static func main() async {
        let parsed: any ParsableCommand
        do { parsed = try await asyncParseAsRoot() } catch { exit(withError: error) }
        var command = parsed
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard let failure = CommandFailure.classify(error) else { exit(withError: error) }
            FileHandle.standardError.write(Data("laminactl: \(failure.message)\n".utf8))
            exit(withError: ExitCode(failure.status))
        }
    }
}
