import Foundation
@_spi(Fuzzing) import RxHTTP
@_spi(Fuzzing) import RxTesting

/// libFuzzer's entry: one input, through `LoopbackFuzzingEntryPoints.parseRequests`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    LoopbackFuzzingEntryPoints.parseRequests(data)
    return 0
}

/// SwiftPM links an executable's `main` to `<target>_main`; this one hands the process to
/// libFuzzer's driver (instead of libFuzzer's own `main`).
@_cdecl("FuzzLoopbackRequestParser_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
