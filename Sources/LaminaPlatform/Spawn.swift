#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts `arguments[0]` (looked up on `PATH` when it holds no "/") with `arguments` and exactly
/// `environment`, as a child of this process; returns its pid. The caller reaps it (`waitpid`).
/// The corresponding C function is `posix_spawnp`.
public func spawnProgram(_ arguments: [String], environment: [String: String]) throws(SystemError) -> pid_t {
    guard let program = arguments.first, !program.isEmpty else { throw SystemError("posix_spawnp", errno: ENOENT) }
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, program, nil, nil, argv, envp)
    guard status == 0 else { throw SystemError("posix_spawnp \(program)", errno: status) }
    return pid
}
