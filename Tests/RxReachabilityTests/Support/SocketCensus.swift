import Foundation

/// The TCP sockets of this process whose remote port is one of `ports` (Linux: the socket inodes
/// of /proc/self/fd matched against /proc/net/tcp and tcp6), or nil where /proc is missing.
///
/// Counting only the sockets aimed at a test's own ports keeps a descriptor check exact while
/// descriptors of earlier tests (URLSession connections, servers) close or open in the background.
func openSockets(toPorts ports: Set<UInt16>) -> Int? {
    guard let inodes = socketInodes() else { return nil }
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // Read to the end: /proc files report size 0, and one read returns only a page of rows.
        guard let handle = FileHandle(forReadingAtPath: table), let data = try? handle.readToEnd() else { continue }
        try? handle.close()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9,
                  let remotePortHex = fields[2].split(separator: ":").last,
                  let remotePort = UInt16(remotePortHex, radix: 16),
                  ports.contains(remotePort),
                  inodes.contains(String(fields[9])) else { continue }
            count += 1
        }
    }
    return count
}

/// The inodes of this process's sockets, from the `socket:[inode]` links in /proc/self/fd.
private func socketInodes() -> Set<String>? {
    guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
    var inodes = Set<String>()
    for descriptor in descriptors {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
              target.hasPrefix("socket:[") else { continue }
        inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
    }
    return inodes
}
