import Foundation

/// Parses `text/event-stream` bytes into `ServerSentEvent`s, incrementally, per the WHATWG HTML
/// standard's event stream interpretation:
///
/// - UTF-8; a leading byte order mark is skipped; lines end at CRLF, LF or CR.
/// - A line starting with `:` is a comment. Otherwise the field name runs to the first `:` (the
///   whole line if there is none, with an empty value) and one space after the colon is dropped.
/// - `data` appends the value and a line feed to the data buffer; `event` sets the type; `id` sets
///   the last event id (ignored if it contains NUL); `retry` (ASCII digits only) sets the
///   reconnection time; other fields are ignored.
/// - A blank line dispatches: nothing if the data buffer is empty (the type is reset), else an event
///   with the data minus its last line feed, the type (default `message`) and the last event id.
/// - At the end of the stream an event not yet dispatched is discarded.
///
/// Bounded: a line over `maxLineBytes` or an event's data over `maxEventBytes` throws `.tooLarge`.
struct ServerSentEventParser: Sendable {
    /// A bound was passed.
    struct TooLarge: Error, CustomStringConvertible {
        let what: String
        let limit: Int
        var description: String { "the \(what) is longer than \(limit) bytes" }
    }

    let maxEventBytes: Int
    private var lines: LineSplitter
    /// The first bytes of the stream while it is still undecided whether they are a BOM.
    private var pendingStart: [UInt8]? = []
    private var data: [UInt8] = []
    private var type = ""
    private(set) var lastEventID: String?
    private(set) var retry: Int?

    init(maxLineBytes: Int, maxEventBytes: Int, lastEventID: String? = nil) {
        lines = LineSplitter(maxLineBytes: maxLineBytes)
        self.maxEventBytes = max(1, maxEventBytes)
        self.lastEventID = lastEventID
    }

    /// Feeds a chunk; returns the events it completed.
    mutating func feed(_ chunk: Data) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        try feed(chunk) { events.append($0) }
        return events
    }

    /// Feeds a chunk, handing each event to `emit` as soon as it is dispatched: the events before a
    /// line over the limit are delivered before its error.
    mutating func feed(_ chunk: Data, emit: (ServerSentEvent) throws -> Void) throws {
        var bytes = [UInt8](chunk)
        if var start = pendingStart {
            // A leading BOM (EF BB BF) is skipped, even when it arrives split across chunks.
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            start.append(contentsOf: bytes)
            if start.count < 3, bom.starts(with: start) {
                pendingStart = start
                return
            }
            pendingStart = nil
            bytes = start.starts(with: bom) ? Array(start.dropFirst(3)) : start
        }
        // The splitter is moved out while its lines are processed (they change the rest of self).
        var splitter = lines
        lines = LineSplitter(maxLineBytes: 1)
        defer { lines = splitter }
        do {
            try splitter.feed(bytes) { line, _ in
                if let event = try process(line) { try emit(event) }
            }
        } catch let error as LineSplitter.LineTooLong {
            throw TooLarge(what: "line \(error.lineNumber)", limit: error.limit)
        }
    }

    private mutating func process(_ line: ArraySlice<UInt8>) throws -> ServerSentEvent? {
        if line.isEmpty {
            return dispatch()
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            guard data.count + value.count + 1 <= maxEventBytes else {
                throw TooLarge(what: "event's data", limit: maxEventBytes)
            }
            data.append(contentsOf: value)
            data.append(0x0A)
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.count <= 9, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                retry = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data.removeAll(keepingCapacity: data.count <= 65_536)
            type = ""
        }
        guard !data.isEmpty else { return nil }
        data.removeLast()   // the trailing line feed
        return ServerSentEvent(
            id: lastEventID, event: type.isEmpty ? "message" : type,
            data: String(decoding: data, as: UTF8.self), retry: retry
        )
    }
}
