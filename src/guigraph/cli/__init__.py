"""The ``guigraph`` command line. Each command is a thin call into the library."""
