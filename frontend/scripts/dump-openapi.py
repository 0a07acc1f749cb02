"""Print the server's OpenAPI document (no database needed: create_app does not connect)."""

import json
import os
import sys
import tempfile

os.environ["PERFATLAS_DATABASE_URL"] = "sqlite:///" + os.path.join(tempfile.gettempdir(), "perfatlas-openapi.db")

from perfatlas.main import create_app  # noqa: E402

json.dump(create_app().openapi(), sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
