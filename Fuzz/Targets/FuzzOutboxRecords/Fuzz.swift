import FuzzSupport
@_spi(Fuzzing) import RxHTTP
@_spi(Fuzzing) import RxTesting

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzingEntryPoints.decodeOutboxRecord(fuzzInput(start, count))
    return 0
}

@_cdecl("FuzzOutboxRecords_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
