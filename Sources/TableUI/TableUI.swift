// The TableUI module; see ARCHITECTURE in README.md.
