import Foundation

/// A server of the soak in a child process: this executable started again in a server mode
/// (`serve`, `serve-api`, `serve-oauth`, `serve-hostile`), which prints one line (its port or
/// ports) once it listens and then serves until it is killed. The child talks to the parent only
/// through HTTP and its exit, so that the parent's RSS and descriptors are the client's alone.
///
/// Secrets go in `environment`, never in `arguments` (which `ps` shows to every user).
enum ChildProcess {
    /// Starts `/proc/self/exe <mode> <arguments…>` and returns it with the first line it printed.
    ///
    /// - Returns: nil, having said why, when the child could not start or printed nothing.
    static func start(mode: String, arguments: [String] = [], environment: [String: String] = [:]) -> (Process, String)? {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = [mode] + arguments
        if !environment.isEmpty {
            child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        child.standardOutput = output
        do {
            try child.run()
        } catch {
            print("could not start the \(mode) process: \(error)")
            return nil
        }
        var line = Data()
        while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        // The child prints nothing more; keeping the pipe would cost a descriptor per restart.
        try? output.fileHandleForReading.close()
        guard !line.isEmpty else {
            print("the \(mode) process printed nothing")
            child.terminate()
            return nil
        }
        return (child, String(decoding: line, as: UTF8.self))
    }

    /// Kills `child` at once (SIGKILL: no cleanup, as a crash or the OOM killer would) and reaps it.
    static func crash(_ child: Process) {
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
    }
}
