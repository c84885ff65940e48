import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The answers kept on disk: one file per key in the cache's directory, written atomically
/// (temporary file, flush, rename) on a queue of its own, checked when read, least recently used
/// evicted first. An index of the files (size, last use) is kept in memory and rebuilt from the
/// directory at start (last use from the file's modification time).
///
/// A file is `RXNKC002`, the metadata's length (4 bytes, big-endian), the metadata (JSON: the key and
/// each variant's status, headers, URL, times, `Vary` values and body length), the bodies, and an
/// FNV-1a 64-bit checksum of all that (8 bytes). Anything else — a torn write, a flipped bit, a
/// stranger's file — is deleted when met and reads as a miss.
final class DiskCacheStore: Sendable {
    /// Version 2 keeps each header line (a repeated field's too); a version-1 file is foreign,
    /// a miss, and deleted when met.
    static let magic = Array("RXNKC002".utf8)
    static let maxMetadataBytes = 1 << 20
    static let fileSuffix = ".rxc"
    static let temporaryPrefix = ".tmp-"

    private struct IndexEntry {
        var bytes: Int
        var lastUse: Date
    }

    private struct Index {
        var files: [String: IndexEntry] = [:]
        var totalBytes = 0
    }

    let directory: URL
    let maxBytes: Int
    private let index = Mutex(Index())
    private let queue = DispatchQueue(label: "RxHTTP.HTTPCache.disk")

    /// Opens (or creates, mode 0700) `directory`, removes temporary files a crash left, and indexes
    /// the cache files there.
    ///
    /// - Throws: The file system's error when the directory cannot be created or listed.
    init(directory: URL, maxBytes: Int) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var found = Index()
        for name in try files.contentsOfDirectory(atPath: directory.path) {
            let path = directory.appendingPathComponent(name).path
            if name.hasPrefix(Self.temporaryPrefix) {
                // A write a crash interrupted: never renamed into place, never read.
                try? files.removeItem(atPath: path)
                continue
            }
            guard name.hasSuffix(Self.fileSuffix), name.utf8.count == 32 + Self.fileSuffix.utf8.count,
                  let attributes = try? files.attributesOfItem(atPath: path),
                  let size = (attributes[.size] as? NSNumber)?.intValue else { continue }
            let modified = attributes[.modificationDate] as? Date ?? .distantPast
            found.files[name] = IndexEntry(bytes: size, lastUse: modified)
            found.totalBytes += size
        }
        index.withLock { $0 = found }
        queue.async { [self] in evict() }
    }

    var totalBytes: Int {
        index.withLock { $0.totalBytes }
    }

    /// The file name of `key`: 128 bits of two FNV-1a hashes, in hex.
    static func fileName(for key: String) -> String {
        let bytes = Array(key.utf8)
        let first = fnv1a(bytes[...], basis: 0xcbf2_9ce4_8422_2325)
        let second = fnv1a(bytes[...], basis: 0x8422_2325_cbf2_9ce4)
        return hex(first) + hex(second) + fileSuffix
    }

    // MARK: Reading

    /// The variants stored for `key`, or nil (none, or the file was bad and is gone).
    func variants(for key: String) -> [CachedResponse]? {
        let name = Self.fileName(for: key)
        guard index.withLock({ $0.files[name] != nil }) else { return nil }
        let path = directory.appendingPathComponent(name).path
        guard let data = FileManager.default.contents(atPath: path), data.count <= max(maxBytes, 64),
              let (storedKey, variants) = Self.decode(data), storedKey == key else {
            // Unreadable, torn, or another key with the same name: drop it.
            forget(name)
            queue.async { _ = unlink(path) }
            return nil
        }
        let now = Date()
        index.withLock { $0.files[name]?.lastUse = now }
        queue.async { _ = Self.touch(path) }
        return variants
    }

    /// Decodes a file's bytes; nil for anything that is not a whole, unaltered cache file.
    static func decode(_ data: Data) -> (key: String, variants: [CachedResponse])? {
        let bytes = [UInt8](data)
        let fixed = magic.count + 4 + 8
        guard bytes.count >= fixed, Array(bytes[0..<magic.count]) == magic else { return nil }
        let checksumStart = bytes.count - 8
        let stored = bytes[checksumStart...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard fnv1a(bytes[0..<checksumStart], basis: 0xcbf2_9ce4_8422_2325) == stored else { return nil }
        let lengthStart = magic.count
        let metadataLength = bytes[lengthStart..<(lengthStart + 4)].reduce(0) { $0 << 8 | Int($1) }
        let metadataStart = lengthStart + 4
        guard metadataLength <= maxMetadataBytes, metadataStart + metadataLength <= checksumStart,
              let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(bytes[metadataStart..<(metadataStart + metadataLength)])),
              metadata.variants.count <= HTTPCache.maxVariants else { return nil }
        var offset = metadataStart + metadataLength
        var variants: [CachedResponse] = []
        for variant in metadata.variants {
            guard variant.headers.allSatisfy({ $0.count == 2 }) else { return nil }
            guard variant.bodyLength >= 0, variant.bodyLength <= checksumStart - offset, (100...599).contains(variant.statusCode),
                  variant.requestTime.isFinite, variant.responseTime.isFinite else { return nil }
            let body = Data(bytes[offset..<(offset + variant.bodyLength)])
            offset += variant.bodyLength
            variants.append(CachedResponse(
                statusCode: variant.statusCode, headers: HTTPHeaders(variant.headers.map { ($0[0], $0[1]) }), body: body, url: variant.url.flatMap(URL.init(string:)),
                requestTime: Date(timeIntervalSince1970: variant.requestTime),
                responseTime: Date(timeIntervalSince1970: variant.responseTime), varyValues: variant.varyValues
            ))
        }
        guard offset == checksumStart else { return nil }
        return (metadata.key, variants)
    }

    // MARK: Writing

    /// Writes `variants` for `key` on the store's queue, atomically, then evicts beyond the limit.
    func write(_ variants: [CachedResponse], for key: String) {
        queue.async { [self] in
            guard let data = Self.encode(key: key, variants: variants), data.count <= maxBytes / 8 else { return }
            let name = Self.fileName(for: key)
            let final = directory.appendingPathComponent(name).path
            let temporary = directory.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString).path
            guard Self.writeDurably(data, to: temporary), rename(temporary, final) == 0 else {
                _ = unlink(temporary)
                return
            }
            index.withLock { index in
                index.totalBytes += data.count - (index.files[name]?.bytes ?? 0)
                index.files[name] = IndexEntry(bytes: data.count, lastUse: Date())
            }
            evict()
        }
    }

    /// The bytes of a file for `key`.
    static func encode(key: String, variants: [CachedResponse]) -> Data? {
        let metadata = Metadata(key: key, variants: variants.map {
            Metadata.Variant(
                statusCode: $0.statusCode, headers: $0.headers.map { [$0.name, $0.value] }, url: $0.url?.absoluteString,
                requestTime: $0.requestTime.timeIntervalSince1970, responseTime: $0.responseTime.timeIntervalSince1970,
                varyValues: $0.varyValues, bodyLength: $0.body.count
            )
        })
        guard let json = try? JSONEncoder().encode(metadata), json.count <= maxMetadataBytes else { return nil }
        var bytes = magic
        let length = UInt32(json.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes += json
        for variant in variants { bytes += variant.body }
        let checksum = fnv1a(bytes[...], basis: 0xcbf2_9ce4_8422_2325)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(checksum >> UInt64(shift) & 0xFF))
        }
        return Data(bytes)
    }

    private static func writeDurably(_ data: Data, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { buffer -> Bool in
            guard var pointer = buffer.baseAddress else { return true }
            var left = buffer.count
            while left > 0 {
                let count = systemWrite(descriptor, pointer, left)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                left -= count
                pointer += count
            }
            return true
        }
        return written && fsync(descriptor) == 0
    }

    private static func touch(_ path: String) -> Int32 {
        utimes(path, nil)
    }

    // MARK: Removing

    func remove(_ key: String) {
        let name = Self.fileName(for: key)
        forget(name)
        let path = directory.appendingPathComponent(name).path
        queue.async { _ = unlink(path) }
    }

    func removeAll() {
        let names = index.withLock { index -> [String] in
            defer { index = Index() }
            return Array(index.files.keys)
        }
        queue.async { [directory] in
            for name in names { _ = unlink(directory.appendingPathComponent(name).path) }
        }
    }

    func flush() {
        queue.sync {}
    }

    private func forget(_ name: String) {
        index.withLock { index in
            if let entry = index.files.removeValue(forKey: name) { index.totalBytes -= entry.bytes }
        }
    }

    /// Deletes the least recently used files until the total fits (on the queue).
    private func evict() {
        while true {
            let victim = index.withLock { index -> String? in
                guard index.totalBytes > maxBytes, let oldest = index.files.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return nil }
                index.files.removeValue(forKey: oldest.key)
                index.totalBytes -= oldest.value.bytes
                return oldest.key
            }
            guard let victim else { return }
            _ = unlink(directory.appendingPathComponent(victim).path)
        }
    }

    // MARK: Format

    private struct Metadata: Codable {
        struct Variant: Codable {
            var statusCode: Int
            /// The header lines in order, each `[name, value]`.
            var headers: [[String]]
            var url: String?
            var requestTime: Double
            var responseTime: Double
            var varyValues: [String: String]
            var bodyLength: Int
        }

        var key: String
        var variants: [Variant]
    }

    static func fnv1a(_ bytes: ArraySlice<UInt8>, basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 {
            text[15 - index] = digits[Int(value >> UInt64(index * 4) & 0xF)]
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// `write(2)`, named apart from the store's own `write(_:for:)`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}
