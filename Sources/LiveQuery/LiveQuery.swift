// The LiveQuery module; see ARCHITECTURE in README.md.
