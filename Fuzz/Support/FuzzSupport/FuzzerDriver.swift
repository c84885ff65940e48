import Foundation

/// Runs libFuzzer's driver with `testOneInput`. SwiftPM links an executable's `main` to
/// `<target>_main` on Linux, so each target's `<target>_main` calls this instead of libFuzzer's own
/// `main`.
public func runFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
}

/// The input as `Data`.
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
    start.map { Data(bytes: $0, count: count) } ?? Data()
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
