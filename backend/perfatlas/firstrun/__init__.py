"""The first run of `make up`: `perfatlas serve --first-run` starts `perfatlas-agent first-run`
beside the server (see agent/src/perfatlas_agent/firstrun)."""
