"""Storage Protocols and backends."""

from .protocols import NodeLog, ProjectStore, ProvenanceSource, SessionRepository

__all__ = ["NodeLog", "ProjectStore", "ProvenanceSource", "SessionRepository"]
