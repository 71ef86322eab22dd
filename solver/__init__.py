"""Sizing and optimization.

- ``sizing``  — from a training job to GPU memory, FLOPs, hours and fit on each cluster shape.
- ``costs``   — the cost model: every cost formula, shared by the optimizer, verifier, reports and tests.
- ``milp``    — the mixed-integer program: ``formulation`` (PuLP model), ``backends`` (CBC by default, HiGHS optional), ``names`` (row names).
- ``enums``   — ``SolveStatus`` and ``Strategy``, and ``STRATEGIES``, the one list of strategies.
- ``verify``  — the independent checker every plan must pass before it is shown.
- ``plan``    — result objects the reports read.
"""
