"""Careless input at every entry point, one module per command: one `error:` line, the right exit code, and every
input byte-identical afterwards (`refused`)."""
