"""`python -m codebench` runs the CLI."""

from codebench.cli import main

main()
