from .entrypoints.cli import main

raise SystemExit(main(exiting=True))
