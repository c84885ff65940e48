import Foundation
@_spi(RxNetworkKitInternals) import RxCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fleet of replicas on one machine, coordinated through one directory and no dependency:
///
/// - `locks/NAME.lock`: `flock` locks, which the kernel releases when their process dies.
/// - `members/ID.json`: one file per live replica, held under its own `flock` for the process's life
///   and touched at every heartbeat; a file whose lock is free (its process died) or whose heartbeat
///   is older than the time-out is removed, and with it the member's quota account.
/// - `credentials/NAME.json`: credentials, replaced atomically and durably (fsync), mode 0600.
/// - `quota/KEY.bucket`: shared token buckets, each read and written in place under its own `flock`
///   (soft state: a torn one starts empty).
/// - `signals/KEY.json`: the latest word about each host, polled every 50 ms by the siblings.
///
/// Everything is created with modes 0700 (directories) and 0600 (files).
// @unchecked Sendable: mutable state (the signal watch's Dispatch timer, which is not Sendable, among
// it) lives in one LockedState; the paths are immutable.
final class SameHostFleetEngine: FleetEngine, @unchecked Sendable {
    private struct State {
        /// Our member file, locked for the life of the process.
        var memberDescriptor: Int32 = -1
        var memberPath: String?
        var watch: DispatchSourceTimer?
        /// Signal files seen: name → (inode, mtime in ns), so that each new word is delivered once.
        var seenSignals: [String: (UInt64, Int64)] = [:]
        /// The quota buckets' files, kept open: a lease is a lock, a read and a write in place.
        var buckets: [String: Int32] = [:]
        /// The members alive at the last heartbeat (nil before the first), whose accounts a lease keeps.
        var living: Set<String>?
    }

    private struct Bucket: Codable {
        var tokens: Double
        var at: TimeInterval
        var accounts: [String: Int]
    }

    let directory: String
    private let state = LockedState<State>.make(State())
    private let watchQueue = DispatchQueue(label: "RxHTTP.Fleet.sameHost.signals")
    /// How long a lock on shared soft state (a quota bucket) may be waited for.
    private let stateLockWait: TimeInterval = 2

    var description: String {
        "same-host fleet at \(directory)"
    }

    /// Creates the directory layout (modes 0700).
    ///
    /// - Throws: `FleetError.unavailable` when the directory cannot be created or written.
    init(directory: URL) throws {
        self.directory = directory.standardizedFileURL.path
        for folder in ["", "/locks", "/members", "/credentials", "/quota", "/signals"] {
            do {
                try AtomicFile.makeDirectory(self.directory + folder)
            } catch {
                throw FleetError(.unavailable, "the fleet directory \(self.directory + folder) cannot be created: \(HTTPClientError.describe(error))")
            }
        }
        guard access(self.directory + "/locks", W_OK) == 0 else {
            throw FleetError(.unavailable, "the fleet directory \(self.directory) is not writable")
        }
    }

    deinit {
        close()
    }

    // MARK: Locks

    func withLock<T: Sendable>(_ name: String, wait: TimeInterval, _ body: @Sendable () async throws -> T) async throws -> T {
        let fd = try await lockFile(directory + "/locks/" + FleetNames.file(name) + ".lock", wait: wait)
        defer { unlockFile(fd) }
        return try await body()
    }

    /// Opens `path` and takes its `flock` (`FleetError.busy` when a sibling keeps it for `wait`).
    private func lockFile(_ path: String, wait: TimeInterval) async throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FleetError(.unavailable, "the lock file \(path) cannot be opened (errno \(errno))") }
        do {
            try await lock(fd, wait: wait, kind: .busy, what: "the lock \((path as NSString).lastPathComponent)")
        } catch {
            posixClose(fd)
            throw error
        }
        return fd
    }

    private func unlockFile(_ fd: Int32) {
        flock(fd, LOCK_UN)
        posixClose(fd)
    }

    // MARK: Credentials

    func readCredential(named name: String) async throws -> Data? {
        let path = directory + "/credentials/" + FleetNames.file(name) + ".json"
        return try Self.read(path, limit: 1 << 20)
    }

    func writeCredential(named name: String, _ data: Data?) async throws {
        let path = directory + "/credentials/" + FleetNames.file(name) + ".json"
        guard let data else {
            if unlink(path) != 0, errno != ENOENT {
                throw FleetError(.unavailable, "the credential file \(path) cannot be removed (errno \(errno))")
            }
            AtomicFile.syncDirectory(directory + "/credentials")
            return
        }
        do {
            try AtomicFile.write(data, to: path, durable: true)
        } catch {
            throw FleetError(.unavailable, "the credential file \(error.path) could not be written (\(error.what), errno \(error.errno))")
        }
    }

    // MARK: Quota

    func lease(_ request: QuotaLeaseRequest) async throws -> QuotaGrant {
        let fd = try bucketDescriptor(FleetNames.file(request.bucket))
        try await lock(fd, wait: stateLockWait, kind: .timedOut, what: "the quota bucket")
        defer { flock(fd, LOCK_UN) }
        let now = Date().timeIntervalSince1970
        // A torn bucket (a crash mid-write: it is soft state, written in place) or a foreign one
        // starts empty: fewer sends, never more.
        var bucket = Self.readBucket(fd) ?? Bucket(tokens: 0, at: now, accounts: [:])
        if bucket.tokens.isNaN || bucket.at.isNaN { bucket = Bucket(tokens: 0, at: now, accounts: [:]) }
        if let living = state.withLock({ $0.living }) {
            bucket.accounts = bucket.accounts.filter { living.contains($0.key) || $0.key == request.member }
        }
        let grant = QuotaArithmetic.settle(
            tokens: &bucket.tokens, at: &bucket.at, accounts: &bucket.accounts, request: request, now: now
        )
        guard let data = try? JSONEncoder().encode(bucket),
              data.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) == data.count, ftruncate(fd, off_t(data.count)) == 0 else {
            throw FleetError(.unavailable, "the quota bucket for \(request.bucket) could not be written (errno \(errno))")
        }
        return grant
    }

    /// The open file of a bucket; a new bucket's file starts full (its capacity is written by the
    /// first lease, which finds it empty and fills it).
    private func bucketDescriptor(_ key: String) throws -> Int32 {
        if let fd = state.withLock({ $0.buckets[key] }) { return fd }
        let path = directory + "/quota/" + key + ".bucket"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FleetError(.unavailable, "the quota bucket \(path) cannot be opened (errno \(errno))") }
        let kept = state.withLock { state -> Int32 in
            if let raced = state.buckets[key] { return raced }
            state.buckets[key] = fd
            return fd
        }
        if kept != fd { posixClose(fd) }
        return kept
    }

    /// A bucket's state; an empty file is a new bucket, which starts full; nil for one that cannot
    /// be read.
    private static func readBucket(_ fd: Int32) -> Bucket? {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0, count < buffer.count else { return nil }
        if count == 0 { return Bucket(tokens: .infinity, at: Date().timeIntervalSince1970, accounts: [:]) }
        return try? JSONDecoder().decode(Bucket.self, from: Data(buffer[0..<count]))
    }

    /// Takes `fd`'s `flock`, polling every 2 ms up to `wait` seconds (a blocking `flock` would hold
    /// a thread of the cooperative pool); throws `kind` when it stays taken.
    private func lock(_ fd: Int32, wait: TimeInterval, kind: FleetError.Kind, what: String) async throws {
        let deadline = Date().addingTimeInterval(wait)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline, !Task.isCancelled else {
                throw FleetError(kind, "\(what) was not free within \(String(format: "%.3g", wait)) s")
            }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
    }

    // MARK: Signals

    func publish(_ signal: FleetSignal) async throws {
        let path = directory + "/signals/" + FleetNames.file(signal.origin) + ".json"
        do {
            try AtomicFile.write(try JSONEncoder().encode(signal), to: path, durable: false)
        } catch {
            throw FleetError(.unavailable, "the signal for \(signal.origin) could not be written: \(error)")
        }
    }

    func watchSignals(as member: FleetMember, _ onSignal: @escaping @Sendable (FleetSignal) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: watchQueue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(50), leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            for signal in self.newSignals() where signal.from != member.id {
                onSignal(signal)
            }
        }
        let previous = state.withLock { state -> DispatchSourceTimer? in
            defer { state.watch = timer }
            return state.watch
        }
        previous?.cancel()
        timer.resume()
    }

    /// The signal files that changed since the last look (a rename makes a new inode), decoded;
    /// files that cannot be decoded are skipped.
    private func newSignals() -> [FleetSignal] {
        let folder = directory + "/signals"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var changed: [(String, (UInt64, Int64))] = []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0 else { continue }
            let mark = (UInt64(info.st_ino), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
            changed.append((name, mark))
        }
        let fresh = state.withLock { state -> [String] in
            var fresh: [String] = []
            for (name, mark) in changed {
                if let seen = state.seenSignals[name], seen == mark { continue }
                state.seenSignals[name] = mark
                fresh.append(name)
            }
            return fresh
        }
        return fresh.compactMap { name in
            (try? Self.read(folder + "/" + name, limit: 64 << 10)).flatMap { $0 }.flatMap { try? JSONDecoder().decode(FleetSignal.self, from: $0) }
        }
    }

    // MARK: Members

    func heartbeat(_ member: FleetMember, timeout: TimeInterval) async throws -> [FleetMember] {
        try joinIfNeeded(member)
        let folder = directory + "/members"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw FleetError(.unavailable, "the members folder \(folder) cannot be read")
        }
        let now = Date()
        var alive: [FleetMember] = []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = folder + "/" + name
            guard let data = (try? Self.read(path, limit: 64 << 10)).flatMap({ $0 }),
                  let other = try? JSONDecoder().decode(FleetMember.self, from: data) else { continue }
            if other.id == member.id {
                alive.append(other)
                continue
            }
            if isDead(path, now: now, timeout: timeout) {
                unlink(path)
                continue
            }
            alive.append(other)
        }
        state.withLock { $0.living = Set(alive.map(\.id)) }
        return alive.sorted { ($0.since, $0.id) < ($1.since, $1.id) }
    }

    /// A member is dead when nobody holds its file's lock (its process is gone) or its heartbeat is
    /// older than `timeout` (it hangs).
    private func isDead(_ path: String, now: Date, timeout: TimeInterval) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { posixClose(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return true
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let touched = TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
        return now.timeIntervalSince1970 - touched > timeout
    }

    /// Writes our member file once (locked before it appears under its name, so that no sibling
    /// takes it for a dead one), then touches it at every heartbeat.
    private func joinIfNeeded(_ member: FleetMember) throws {
        let touched = state.withLock { state -> Bool in
            guard state.memberDescriptor >= 0 else { return false }
            futimens(state.memberDescriptor, nil)
            return true
        }
        if touched { return }
        let path = directory + "/members/" + FleetNames.file(member.id) + ".json"
        let temporary = directory + "/members/." + FleetNames.file(member.id) + ".tmp"
        let fd = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FleetError(.unavailable, "the member file \(temporary) cannot be created (errno \(errno))") }
        let data = (try? JSONEncoder().encode(member)) ?? Data()
        let written = data.withUnsafeBytes { buffer in buffer.baseAddress.map { write(fd, $0, buffer.count) } ?? 0 }
        guard written == data.count, flock(fd, LOCK_EX | LOCK_NB) == 0, rename(temporary, path) == 0 else {
            posixClose(fd)
            unlink(temporary)
            throw FleetError(.unavailable, "the member file \(path) cannot be written (errno \(errno))")
        }
        let raced = state.withLock { state -> Bool in
            guard state.memberDescriptor < 0 else { return true }
            state.memberDescriptor = fd
            state.memberPath = path
            return false
        }
        if raced { posixClose(fd) }
    }

    func leave(_ member: FleetMember) async {
        let (fd, path) = state.withLock { state -> (Int32, String?) in
            defer { state.memberDescriptor = -1; state.memberPath = nil }
            return (state.memberDescriptor, state.memberPath)
        }
        if let path { unlink(path) }
        if fd >= 0 { posixClose(fd) }
    }

    func close() {
        let (watch, fd, buckets) = state.withLock { state -> (DispatchSourceTimer?, Int32, [Int32]) in
            defer { state.watch = nil; state.memberDescriptor = -1; state.buckets = [:] }
            return (state.watch, state.memberDescriptor, Array(state.buckets.values))
        }
        watch?.cancel()
        for bucket in buckets { posixClose(bucket) }
        // Closing releases the member lock: siblings see us gone at their next heartbeat.
        if fd >= 0 { posixClose(fd) }
    }

    // MARK: Files

    /// The file's bytes, nil when it does not exist; at most `limit` bytes (a larger file is not
    /// ours).
    private static func read(_ path: String, limit: Int) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw FleetError(.unavailable, "\(path) cannot be read (errno \(errno))")
        }
        defer { posixClose(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FleetError(.unavailable, "\(path) cannot be read (errno \(errno))")
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
            guard data.count <= limit else { throw FleetError(.corrupt, "\(path) is larger than \(limit) bytes") }
        }
    }
}

/// File and key names made from what callers and servers give (a credential's name, an origin):
/// readable where safe, always unique (a hash of the whole name), never a path.
enum FleetNames {
    static func file(_ name: String) -> String {
        var readable = ""
        for scalar in name.unicodeScalars.prefix(48) {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_": readable.unicodeScalars.append(scalar)
            default: readable += "_"
            }
        }
        return readable + "-" + String(hash(name), radix: 16)
    }

    /// FNV-1a, 64 bits: stable across processes and runs (Swift's `Hasher` is seeded per process).
    static func hash(_ name: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        return value
    }
}

// The class's own `close()` and `read` names hide the system calls inside it.
private func posixClose(_ fd: Int32) {
    _ = close(fd)
}

private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
