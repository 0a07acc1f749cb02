"""Errors the importers raise for files they cannot read."""

from __future__ import annotations


class ImportFormatError(ValueError):
    """The uploaded file is not what the importer reads.

    The message says what is wrong, for a person.
    """
