"""``python -m ogmemory.interfaces.cli`` runs ``ogmem``."""

from . import main

main()
