"""The derived index: full text, vectors at L0/L1/L2, outbox, cursors."""
