"""The entity layer (seed 001): Session-Git, Project-Git and the provenance read layer."""

from .project_git import ProjectGit, ProjectRegistry
from .provenance import ProvenanceReader
from .session_git import GitSession
from .session_store import SessionStore

__all__ = ["GitSession", "ProjectGit", "ProjectRegistry", "ProvenanceReader", "SessionStore"]
