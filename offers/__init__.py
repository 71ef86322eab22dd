"""Where prices come from: the bundled, dated catalog and the user's vendor quotes (YAML, CSV, XLSX)."""
