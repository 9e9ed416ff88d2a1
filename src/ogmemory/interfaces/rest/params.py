"""The path parameters shared by routes; times in URLs go through the one ``parse_when``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from ...entity.times import parse_when
from ...tenancy import MAX_ID_LEN
from .schemas import ID_PATTERN

__all__ = ["BatchIdPath", "EntityPath", "KeyIdPath", "MemoryIdPath", "SessionIdPath",
           "parse_when"]

SessionIdPath = Annotated[str, Path(min_length=1, max_length=MAX_ID_LEN, pattern=ID_PATTERN,
                                    description="The session id.")]
MemoryIdPath = Annotated[str, Path(min_length=1, max_length=200,
                                   description="The memory id (`m_...`).")]
EntityPath = Annotated[str, Path(min_length=1, max_length=200,
                                 description="An entity id (`tool.postgresql`), name or alias.")]
BatchIdPath = Annotated[str, Path(min_length=1, max_length=200,
                                  description="The batch id, as listed by `GET /v1/batches`.")]
KeyIdPath = Annotated[str, Path(min_length=1, max_length=200, description="The key id (`k_...`).")]
