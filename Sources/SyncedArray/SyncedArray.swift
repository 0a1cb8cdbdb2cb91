// The SyncedArray module; see ARCHITECTURE in README.md.
