"""The ground every layer stands on: procure's errors and exit codes (``errors``) and its text rules —
printable, bounded, shortened strings (``text``), and the one runtime of a command (``runtime``). It imports nothing of procure's, so no arrow runs upward."""
