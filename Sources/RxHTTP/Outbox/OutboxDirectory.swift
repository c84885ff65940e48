import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The outbox's files: their names, reading a directory back after a start (or a crash), and
/// setting aside what is not a whole record.
enum OutboxDirectory {
    static let entrySuffix = ".entry"
    static let outcomeSuffix = ".outcome"
    static let skippedFolder = "skipped"

    struct Contents {
        var entries: [Outbox.Indexed] = []
        var skipped: [Outbox.SkippedRecord] = []
    }

    static func entryName(_ id: UUID) -> String { id.uuidString + entrySuffix }
    static func entryPath(_ directory: String, _ id: UUID) -> String { directory + "/" + entryName(id) }
    static func outcomePath(_ directory: String, _ id: UUID) -> String { directory + "/" + id.uuidString + outcomeSuffix }

    /// `scheme://host:port` of `url` (lower case, the scheme's port when none is given): the unit of
    /// in-order delivery.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else { return url }
        let host = components.host?.lowercased() ?? ""
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// Every entry of `directory` with the outcome recorded for it, if any. Leftover temporary
    /// files (a write a crash interrupted, never acknowledged) and outcomes whose entry is gone (a
    /// crash while removing both) are deleted; a file that is not a whole record is set aside.
    static func load(_ directory: String) throws -> Contents {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        var contents = Contents()
        var outcomes: [UUID: StoredOutcome] = [:]
        var entries: [(StoredEntry, Int)] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                _ = unlink(path)
                continue
            }
            let isEntry = name.hasSuffix(entrySuffix)
            guard isEntry || name.hasSuffix(outcomeSuffix) else { continue }
            let stem = String(name.dropLast(isEntry ? entrySuffix.count : outcomeSuffix.count))
            guard let data = FileManager.default.contents(atPath: path) else {
                contents.skipped.append(.init(fileName: setAside(directory, name) ?? name, reason: "cannot be read"))
                continue
            }
            do {
                switch try OutboxRecord.decode(data) {
                case .entry(let stored) where isEntry && stored.id.uuidString == stem:
                    entries.append((stored, data.count))
                case .outcome(let outcome) where !isEntry && outcome.id.uuidString == stem:
                    outcomes[outcome.id] = outcome
                default:
                    throw OutboxRecord.Defect.malformed("its name does not match what it holds")
                }
            } catch {
                let reason = (error as? OutboxRecord.Defect)?.description ?? "\(error)"
                contents.skipped.append(.init(fileName: setAside(directory, name) ?? name, reason: reason))
            }
        }
        for (stored, bytes) in entries {
            contents.entries.append(Outbox.Indexed(
                entry: OutboxEntry(stored), sequence: stored.sequence, bytes: bytes, origin: origin(of: stored.url),
                recordedOutcome: outcomes[stored.id], recordedBeforeStart: outcomes[stored.id] != nil
            ))
            outcomes[stored.id] = nil
        }
        for id in outcomes.keys {
            _ = unlink(outcomePath(directory, id))
        }
        if !outcomes.isEmpty { AtomicFile.syncDirectory(directory) }
        contents.entries.sort { $0.sequence < $1.sequence }
        return contents
    }

    /// Moves `name` into the `skipped` folder (kept for a person to look at, never sent); its name
    /// there, or nil when it could not be moved (then it is left in place, and skipped again at the
    /// next start).
    static func setAside(_ directory: String, _ name: String) -> String? {
        let folder = directory + "/" + skippedFolder
        try? AtomicFile.makeDirectory(folder)
        let target = name + "." + UUID().uuidString.prefix(8)
        guard rename(directory + "/" + name, folder + "/" + target) == 0 else { return nil }
        AtomicFile.syncDirectory(directory)
        return skippedFolder + "/" + target
    }
}
