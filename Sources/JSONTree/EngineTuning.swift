// The engine's one public choice, named where a program that links the libraries meets it.
import EngineMemory

/// How much of the machine the engine may use for large files: `.plain` (the default) or
/// `.tuned`, made the process's with `adopt()` (see EngineMemory's `EngineTuning`).
public typealias EngineTuning = EngineMemory.EngineTuning
