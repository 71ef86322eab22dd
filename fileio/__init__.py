"""Files in and out: what procure reads and writes, and the limits on both.

- ``reading`` — input files: only regular files, opened non-blocking, at most ``limits.MAX_FILE_BYTES``.
- ``yamlio``  — bounded, safe YAML loading that keeps line numbers for error messages.
- ``limits``  — every limit on what procure reads, in one place (docs/errors.md lists each).
- ``outputs`` — the files of one command, checked before any work and written as one transaction;
  ``atomic_write`` and ``check_writable`` for one file.

Signals, temporary folders and child processes are ``procure.common.runtime``'s.
"""
