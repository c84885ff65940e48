// The umbrella module: `import RxNetworkKit` is all a user writes.
@_exported import RxCore
@_exported import RxHTTP
@_exported import RxReachability
