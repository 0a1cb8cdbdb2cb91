// The FileStore module; see ARCHITECTURE in README.md.
