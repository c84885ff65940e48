import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Where an `OAuthAuthenticator` keeps its credential between refreshes and restarts.
///
/// Implementations are thread-safe. `save` must be durable and atomic before it returns: refresh
/// tokens rotate and are single-use, so the authenticator writes the new credential before it uses
/// it, and a crash must leave either the old credential or the new one, never a torn file.
public protocol CredentialStore: Sendable {
    /// The stored credential; nil when there is none (never signed in, or cleared).
    ///
    /// - Throws: `CredentialStoreError` when a credential exists but cannot be read or decoded —
    ///   never treated as "none" silently.
    func load() throws -> OAuthCredential?

    /// Stores `credential`, replacing any other.
    ///
    /// - Throws: `CredentialStoreError` when it could not be written.
    func save(_ credential: OAuthCredential) throws

    /// Removes the stored credential (after the server rejected it).
    ///
    /// - Throws: `CredentialStoreError` when it could not be removed.
    func clear() throws
}

/// Why a credential store failed.
///
/// - Note: A value type; `Sendable`. Its description names the file, never a token.
public struct CredentialStoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The file exists but could not be read (permissions, I/O).
        case unreadable
        /// The file was read but is not a credential (truncated, not JSON, wrong shape).
        case corrupt
        /// The credential could not be written or made durable.
        case unwritable
    }

    /// What went wrong.
    public let kind: Kind
    /// The file concerned, if any.
    public let path: String?
    /// The system error number, if a system call failed.
    public let errno: Int32?
    /// A human-readable explanation.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, path: String?, errno: Int32? = nil, message: String) {
        self.kind = kind
        self.path = path
        self.errno = errno
        self.message = message
    }

    /// What failed and where, without the file's contents.
    public var description: String {
        var text = "CredentialStoreError.\(kind.rawValue): \(message)"
        if let path { text += " (\(path))" }
        if let errno { text += " [errno \(errno)]" }
        return text
    }
}

/// A credential kept in memory only: for tests, and for processes that sign in at every start.
///
/// - Note: Thread-safe.
public final class InMemoryCredentialStore: CredentialStore {
    private let stored: LockedState<OAuthCredential?>

    /// Creates a store holding `credential` (or nothing).
    public init(_ credential: OAuthCredential? = nil) {
        stored = .make(credential)
    }

    public func load() throws -> OAuthCredential? {
        stored.withLock { $0 }
    }

    public func save(_ credential: OAuthCredential) throws {
        stored.withLock { $0 = credential }
    }

    public func clear() throws {
        stored.withLock { $0 = nil }
    }
}
