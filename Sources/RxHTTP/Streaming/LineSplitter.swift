import Foundation

/// Splits a byte stream into lines, incrementally and bounded: a line ends at LF, CR or CRLF (a CR at
/// the end of one chunk and an LF at the start of the next are one line end). A line longer than
/// `maxLineBytes` is an error instead of unbounded memory.
struct LineSplitter: Sendable {
    /// A line over the limit.
    struct LineTooLong: Error {
        let lineNumber: Int
        let limit: Int
    }

    let maxLineBytes: Int
    private var partial: [UInt8] = []
    private var lastWasCR = false
    /// The 1-based number of the next complete line.
    private(set) var lineNumber = 1

    init(maxLineBytes: Int) {
        self.maxLineBytes = max(1, maxLineBytes)
    }

    /// Feeds `bytes`; calls `line` for each complete line (without its line end) and its number.
    mutating func feed(_ bytes: some Sequence<UInt8>, line: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        for byte in bytes {
            if byte == 0x0A, lastWasCR {
                // The LF of a CRLF whose CR ended the previous line.
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                let number = lineNumber
                lineNumber += 1
                try line(partial[...], number)
                partial.removeAll(keepingCapacity: partial.count <= 4_096)
                continue
            }
            guard partial.count < maxLineBytes else {
                throw LineTooLong(lineNumber: lineNumber, limit: maxLineBytes)
            }
            partial.append(byte)
        }
    }

    /// The last line if the stream ended without a line end; nil if it was empty.
    mutating func finish() -> (ArraySlice<UInt8>, Int)? {
        guard !partial.isEmpty else { return nil }
        defer { partial = [] }
        return (partial[...], lineNumber)
    }
}
