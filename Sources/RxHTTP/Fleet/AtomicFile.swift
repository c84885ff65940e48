import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files replaced whole or not at all, for state that must survive a crash: the credential files
/// and a same-host fleet's shared state.
///
/// `write` puts the bytes in a temporary file next to the target (created exclusively, mode 0600),
/// optionally fsyncs it, renames it over the target and (when durable) fsyncs the directory: a crash
/// at any point leaves the old file or the new one, complete.
enum AtomicFile {
    /// Why a write failed: the path concerned, the system error and what was being done.
    struct Failure: Error {
        let path: String
        let errno: Int32
        let what: String
    }

    /// Replaces the file at `path` with `data`.
    ///
    /// - Parameters:
    ///   - durable: fsync the file and its directory (credentials); false for soft state that a
    ///     crash may lose (a quota's bucket), which then costs no disk flush.
    ///   - syncingDirectory: false when the caller flushes the directory itself, once for several
    ///     files (the outbox).
    static func write(_ data: Data, to path: String, durable: Bool, syncingDirectory: Bool = true) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = directory + "/." + name + "." + UUID().uuidString + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(path: temporary, errno: errno, what: "create the temporary file") }
        var failure: Failure?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = systemWrite(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Failure(path: temporary, errno: errno, what: "write")
                    return
                }
                offset += written
            }
        }
        if failure == nil, durable, fsync(fd) != 0 {
            failure = Failure(path: temporary, errno: errno, what: "flush to disk")
        }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 {
            failure = Failure(path: path, errno: errno, what: "replace")
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        if durable, syncingDirectory { syncDirectory(directory) }
    }

    /// Makes a rename or an unlink in `directory` durable (best effort: some file systems refuse to
    /// fsync a directory).
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Creates `path` and its missing parents with mode 0700 (an existing directory keeps its mode).
    static func makeDirectory(_ path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }
}

/// The system's `write`, named apart from the many `write` methods in scope.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
