"""Checking and repairing a home: session repositories, knowledge logs, the index
(``ogmem fsck``)."""
