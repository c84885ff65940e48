import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary file a download writes next to its destination (same directory, so that the final
/// rename is atomic), created on first use with mode 0600 and renamed into place when whole.
///
/// Not thread-safe: its `DownloadSession` calls it under its lock.
struct DownloadFile {
    let destination: URL
    let temporary: URL
    private var handle: FileHandle?
    /// Bytes appended but not yet written: small chunks (URLSession hands over 16 KiB) go to the
    /// disk a quarter MiB at a time, which keeps the writer ahead of the network.
    private var pending = Data()
    private static let writeSize = 256 << 10

    init(destination: URL) {
        self.destination = destination
        let name = ".\(destination.lastPathComponent).rxnk-\(UUID().uuidString.prefix(8)).download"
        temporary = destination.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Appends `data`, creating the file on first use.
    ///
    /// - Throws: `.fileSystem` when the file cannot be created or written (no such directory, no
    ///   permission, disk full).
    mutating func append(_ data: Data) throws(HTTPClientError) {
        if pending.isEmpty, data.count >= Self.writeSize {
            try write(data)
            return
        }
        pending.append(data)
        if pending.count >= Self.writeSize {
            try flush()
        }
    }

    /// Writes what is pending.
    mutating func flush() throws(HTTPClientError) {
        guard !pending.isEmpty else { return }
        let data = pending
        pending = Data()
        try write(data)
    }

    private mutating func write(_ data: Data) throws(HTTPClientError) {
        do {
            let handle = try openedHandle()
            try handle.write(contentsOf: data)
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw fileError("cannot write the download's file", error)
        }
    }

    /// Empties the file (a download that starts over).
    mutating func truncate() throws(HTTPClientError) {
        pending = Data()
        guard let handle else { return }
        do {
            try handle.truncate(atOffset: 0)
            try handle.seek(toOffset: 0)
        } catch {
            throw fileError("cannot empty the download's file", error)
        }
    }

    /// Flushes the file to disk, closes it and renames it to the destination (replacing a file
    /// there), then makes the rename durable as `AtomicFile` does. A download of no bytes creates the
    /// empty file.
    mutating func commit() throws(HTTPClientError) {
        try flush()
        do {
            let handle = try openedHandle()
            try handle.synchronize()
            try handle.close()
            self.handle = nil
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw fileError("cannot flush the download's file", error)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let code = errno
            throw HTTPClientError(
                .fileSystem, message: "cannot move the download into place: \(String(cString: strerror(code)))",
                underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO), phase: .responded
            )
        }
        AtomicFile.syncDirectory(destination.deletingLastPathComponent().path)
    }

    /// Closes and deletes the temporary file, if any; never touches the destination.
    mutating func discard() {
        pending = Data()
        try? handle?.close()
        handle = nil
        unlink(temporary.path)
    }

    private mutating func openedHandle() throws(HTTPClientError) -> FileHandle {
        if let handle { return handle }
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw HTTPClientError(
                .fileSystem, message: "cannot create the download's file next to its destination: \(String(cString: strerror(code)))",
                underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO), phase: .responded
            )
        }
        let opened = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        handle = opened
        return opened
    }

    private func fileError(_ message: String, _ error: any Error) -> HTTPClientError {
        HTTPClientError(.fileSystem, message: "\(message): \(HTTPClientError.describe(error))", underlying: error, phase: .responded)
    }
}
