import Foundation

/// Entry points for the libFuzzer targets in `Fuzz/`: `LoopbackHTTPServer`'s request parser fed
/// arbitrary bytes, whole and in pieces. Not API: only through `@_spi(Fuzzing) import RxTesting`.
@_spi(Fuzzing)
public enum LoopbackFuzzingEntryPoints {
    /// Parses `data` as a stream of HTTP/1.1 requests, once in one piece and once split into
    /// chunks whose sizes come from the data itself, until the parser needs more or fails.
    public static func parseRequests(_ data: Data) {
        let bytes = [UInt8](data)
        var whole = LoopbackRequestParser(connectionID: 1)
        whole.append(bytes)
        drain(&whole)
        var pieces = LoopbackRequestParser(connectionID: 2)
        var offset = 0
        var step = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            pieces.append(Array(bytes[offset..<end]))
            drain(&pieces)
            step = Int(bytes[offset] % 17) + 1
            offset = end
        }
    }

    private static func drain(_ parser: inout LoopbackRequestParser) {
        // Bounded: each request consumes input, so this ends; the cap is a second guard.
        for _ in 0..<10_000 {
            switch parser.next() {
            case .needMoreData, .failure: return
            case .continueExpected, .request: continue
            }
        }
    }
}
