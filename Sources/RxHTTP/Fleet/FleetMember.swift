import Foundation

/// One live replica of a `Fleet`: a process that heartbeats.
///
/// - Note: A value type; `Sendable`, `Codable` (the shape the engines store).
public struct FleetMember: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The member's id, unique per process start (a UUID).
    public let id: String
    /// The machine it runs on (`gethostname`).
    public let hostName: String
    /// Its process id on that machine.
    public let processID: Int32
    /// When it joined the fleet (its wall clock).
    public let since: Date

    /// Creates a member.
    public init(id: String, hostName: String, processID: Int32, since: Date) {
        self.id = id
        self.hostName = hostName
        self.processID = processID
        self.since = since
    }

    /// This process, joining now.
    static func current() -> FleetMember {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count) == 0 ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return FleetMember(id: UUID().uuidString.lowercased(), hostName: name, processID: getpid(), since: Date())
    }

    /// `pid 4242 on build-1 (3f2a…), since 2026-11-29T07:00:00Z`.
    public var description: String {
        "pid \(processID) on \(hostName) (\(id.prefix(8))…), since \(since.formatted(.iso8601))"
    }
}
