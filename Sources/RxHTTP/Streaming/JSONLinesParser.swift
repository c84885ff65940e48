import Foundation

/// Splits newline-delimited JSON (NDJSON, JSON Lines) into lines and decodes each into `T`.
///
/// Blank lines (or only whitespace) are skipped; a CRLF line end is fine. A line that is not a `T`
/// is a `.decodeError` naming its line number, or skipped when `skipsInvalidLines`. A line over
/// `maxLineBytes` is an error whatever the setting.
struct JSONLinesParser<T: Decodable>: @unchecked Sendable {
    // @unchecked Sendable: the decoder is used by one stream's delivery queue at a time; JSONDecoder
    // is not mutated after creation.
    private var lines: LineSplitter
    private let decoder: JSONDecoder
    private let skipsInvalidLines: Bool

    init(maxLineBytes: Int, decoder: JSONDecoder, skipsInvalidLines: Bool) {
        lines = LineSplitter(maxLineBytes: maxLineBytes)
        self.decoder = decoder
        self.skipsInvalidLines = skipsInvalidLines
    }

    /// Feeds a chunk; returns the values of the lines it completed.
    mutating func feed(_ chunk: Data) throws -> [T] {
        var values: [T] = []
        try feed(chunk) { values.append($0) }
        return values
    }

    /// Feeds a chunk, handing each completed line's value to `emit` as soon as it is decoded: the
    /// values before a bad line are delivered before its error.
    mutating func feed(_ chunk: Data, emit: (T) throws -> Void) throws {
        var splitter = lines
        lines = LineSplitter(maxLineBytes: 1)
        defer { lines = splitter }
        do {
            try splitter.feed(chunk) { line, number in
                if let value = try decode(line, number: number) { try emit(value) }
            }
        } catch let error as LineSplitter.LineTooLong {
            throw HTTPClientError(.decodeError, message: "JSON line \(error.lineNumber) is longer than \(error.limit) bytes", phase: .responded)
        }
    }

    /// The value of a last line without a line end, if any.
    mutating func finish() throws -> T? {
        guard let (line, number) = lines.finish() else { return nil }
        return try decode(line, number: number)
    }

    private func decode(_ line: ArraySlice<UInt8>, number: Int) throws -> T? {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        do {
            return try decoder.decode(T.self, from: Data(line))
        } catch {
            if skipsInvalidLines { return nil }
            throw HTTPClientError(
                .decodeError, message: "JSON line \(number) is not a \(T.self): \(HTTPClientError.describe(error))",
                underlying: error, phase: .responded
            )
        }
    }
}
