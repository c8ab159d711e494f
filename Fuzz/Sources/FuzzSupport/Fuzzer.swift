import CLibFuzzer
import Foundation

/// Runs libFuzzer with the command line's options, calling `testOneInput` for each input.
///
/// Each target defines `LLVMFuzzerTestOneInput`, as libFuzzer expects, and a `@main` that
/// passes it here. The `@main` is needed because SwiftPM links an executable target's own entry
/// point as `main` (it renames `<module>_main`), which overrides libFuzzer's `main`; libFuzzer's
/// driver function is its documented way in for a program with a main of its own.
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
