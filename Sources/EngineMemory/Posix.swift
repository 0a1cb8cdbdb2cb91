// C library functions that Glibc's module map leaves out (those behind `_GNU_SOURCE`, and newer
// ones), found at run time.
#if canImport(Glibc)
import Glibc
#endif

/// The C library's function `name` as `type`; nil where the library lacks it.
func cLibraryFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}
