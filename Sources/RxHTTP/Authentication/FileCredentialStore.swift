import Foundation
@_spi(RxNetworkKitInternals) import RxCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A credential kept in one JSON file, for daemons that must stay signed in across restarts.
///
/// - `save` writes a temporary file next to the target (mode 0600, created exclusively), fsyncs
///   it, renames it over the target and fsyncs the directory: a crash at any point leaves either
///   the old file or the new one, complete. The file is never readable by other users.
/// - `load` returns nil when the file does not exist; a file that exists but cannot be read or
///   decoded throws `CredentialStoreError` (`.unreadable`, `.corrupt`) — never a crash, never a
///   silent sign-out.
/// - `clear` removes the file (nothing to remove is not an error).
///
/// Put it in a directory of the daemon's own (mode 0700); the store creates missing directories
/// with that mode.
///
/// - Note: Thread-safe: calls are serialized by the store's lock; two processes must not share a
///   file.
public final class FileCredentialStore: CredentialStore {
    /// The file.
    public let url: URL
    private let lock = LockedState<Void>.make(())

    /// Creates a store for the file at `url` (nothing is read or written until used).
    public init(url: URL) {
        self.url = url
    }

    public func load() throws -> OAuthCredential? {
        try lock.withLock { _ in
            let path = url.path
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw CredentialStoreError(.unreadable, path: path, message: "the credential file cannot be read: \(HTTPClientError.describe(error))")
            }
            do {
                return try JSONDecoder.credentials.decode(OAuthCredential.self, from: data)
            } catch {
                throw CredentialStoreError(.corrupt, path: path, message: "the credential file is not a valid credential (\(data.count) bytes)")
            }
        }
    }

    public func save(_ credential: OAuthCredential) throws {
        let data: Data
        do {
            data = try JSONEncoder.credentials.encode(credential)
        } catch {
            throw CredentialStoreError(.unwritable, path: url.path, message: "the credential cannot be encoded")
        }
        try lock.withLock { _ in try writeAtomically(data) }
    }

    public func clear() throws {
        try lock.withLock { _ in
            if unlink(url.path) != 0, errno != ENOENT {
                throw CredentialStoreError(.unwritable, path: url.path, errno: errno, message: "the credential file cannot be removed")
            }
            syncDirectory()
        }
    }

    private func writeAtomically(_ data: Data) throws {
        let directory = url.deletingLastPathComponent().path
        do {
            try AtomicFile.makeDirectory(directory)
        } catch {
            throw CredentialStoreError(.unwritable, path: directory, message: "the credential directory cannot be created")
        }
        do {
            try AtomicFile.write(data, to: url.path, durable: true)
        } catch {
            throw CredentialStoreError(.unwritable, path: error.path, errno: error.errno, message: "the credential file could not be written (\(error.what))")
        }
    }

    /// Makes the removal durable.
    private func syncDirectory() {
        AtomicFile.syncDirectory(url.deletingLastPathComponent().path)
    }
}

extension JSONEncoder {
    /// Dates as ISO 8601 with milliseconds, sorted keys: a stable, readable credential file whose
    /// expiry is exact — a whole-second date would make a short-lived token, stored by one replica
    /// and read by another, look up to a second older than it is.
    static var credentials: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    /// Reads ISO 8601 dates with or without fractional seconds (files written before they had them).
    static var credentials: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date")
        }
        return decoder
    }
}
