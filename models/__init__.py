"""What things are: the domain models of procure.

- ``units``   — the one definition of time conversions (days and hours per month).
- ``errors``  — Problem / InputError: every input mistake as file, field, line or row, and message.
- ``gpu``     — the GPU table (``data/gpus.yaml``): canonical ids, aliases, datasheet specs.
- ``model_spec`` — transformer architectures and the bundled presets (``data/model_presets.yaml``).
- ``offer``   — one priced offer (buy / rent / cloud) of a server shape.
- ``project`` — ``workload.yaml``: training workloads plus finance settings.
- ``analysis`` — ``analysis:`` in workload.yaml: sensitivity ranges and Monte Carlo distributions.
"""
