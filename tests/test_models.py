"""Schema rules of workload.yaml, the GPU table and the model presets: each with a valid and an invalid example."""

from __future__ import annotations

import textwrap

import pytest
from pydantic import ValidationError

from procure.common.errors import InputError
from procure.models.gpu import gpu_table
from procure.models.model_spec import model_presets
from procure.models.project import Project, load_project

from helpers import project, workload

REQUIRED_GPUS = [
    "RTX-4090-24GB",
    "RTX-A6000-48GB",
    "RTX-6000-ADA-48GB",
    "L40S-48GB",
    "A100-PCIE-40GB",
    "A100-SXM-40GB",
    "A100-SXM-80GB",
    "H100-PCIE-80GB",
    "H100-SXM-80GB",
    "H800-SXM-80GB",
    "H200-SXM-141GB",
    "B200-SXM-180GB",
    "MI300X-192GB",
]
REQUIRED_PRESETS = [
    "deepseek-llm-7b",
    "deepseek-llm-67b",
    "deepseek-coder-33b",
    "deepseek-v2-lite",
    "deepseek-v2",
    "deepseek-v3",
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "qwen2.5-7b",
    "qwen2.5-72b",
]


def write(tmp_path, text: str, name: str = "workload.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


# --- GPU table ----------------------------------------------------------------------------------


def test_gpu_table_has_every_required_gpu_with_a_source():
    table = gpu_table()
    for gid in REQUIRED_GPUS:
        g = table[gid]
        assert g.source.strip(), gid
        assert g.memory_gb > 0 and g.bf16_dense_tflops > 0


def test_gpu_dense_bf16_is_not_the_sparse_figure():
    # NVIDIA H100 SXM5 datasheet: 1,979 TFLOP/s BF16 *with sparsity*; dense is half, ~989.
    assert gpu_table()["H100-SXM-80GB"].bf16_dense_tflops == pytest.approx(989.4, rel=0.01)
    # A100 datasheet: 312 TFLOP/s dense BF16 (624 with sparsity).
    assert gpu_table()["A100-SXM-80GB"].bf16_dense_tflops == pytest.approx(312, rel=0.01)


@pytest.mark.parametrize(
    "alias,gid",
    [
        ("h100", "H100-SXM-80GB"),
        ("H100-SXM", "H100-SXM-80GB"),
        ("rtx 4090", "RTX-4090-24GB"),
        ("mi300x", "MI300X-192GB"),
    ],
)
def test_gpu_aliases_resolve(alias, gid):
    assert gpu_table().resolve(alias) == gid


def test_unknown_gpu_suggests_the_close_one():
    msg = gpu_table().unknown_message("H1OO")
    assert "did you mean" in msg and "H100" in msg


# --- presets ------------------------------------------------------------------------------------


def test_every_required_preset_exists():
    presets = model_presets()
    for pid in REQUIRED_PRESETS:
        assert pid in presets


def test_moe_presets_have_published_total_and_active_params():
    p = model_presets()
    # DeepSeek-V3 technical report: 671B total, 37B activated per token. DeepSeek-V2: 236B / 21B.
    assert p["deepseek-v3"].params_b == pytest.approx(671, rel=0.01)
    assert p["deepseek-v3"].active_params_b == pytest.approx(37, rel=0.01)
    assert p["deepseek-v2"].params_b == pytest.approx(236, rel=0.01)
    assert p["deepseek-v2"].active_params_b == pytest.approx(21, rel=0.01)
    assert p["deepseek-v3"].is_moe and not p["llama-2-7b"].is_moe


def test_llama2_7b_preset_matches_its_config():
    # meta-llama/Llama-2-7b-hf config.json: 32 layers, hidden 4096, 32 heads, intermediate 11008, vocab 32000.
    s = model_presets()["llama-2-7b"]
    assert (s.layers, s.hidden_size, s.heads, s.ffn_hidden_size, s.vocab_size) == (32, 4096, 32, 11008, 32000)


# --- workload.yaml ------------------------------------------------------------------------------


def test_minimal_project_gets_documented_defaults():
    p = project([workload()])
    assert p.currency == "USD" and p.discount_rate == 0 and set(p.allowed_modes) == {"buy", "rent", "cloud"}
    w = p.workloads[0]
    assert w.model.id == "llama-2-7b" and w.seq_len == 4096 and w.earliest_start_days == 0


def test_defaults_horizon_and_period():
    p = Project.model_validate({"name": "x", "workloads": [workload()]})
    assert p.horizon_months == 36 and p.period_days == 7


def test_inline_model_is_accepted():
    w = workload(
        model={
            "params_b": 1.3,
            "layers": 24,
            "hidden_size": 2048,
            "heads": 16,
            "kv_heads": 16,
            "ffn_hidden_size": 8192,
            "vocab_size": 50000,
        }
    )
    assert project([w]).workloads[0].model.params_b == 1.3


@pytest.mark.parametrize(
    "bad,needle",
    [
        ({"method": "sft"}, "allowed"),
        ({"tokens_b": 0}, "greater than 0"),
        ({"tokens_b": -1}, "greater than 0"),
        ({"deadline_days": 5, "earliest_start_days": 10}, "must be after earliest_start_days"),
        ({"model": "deepseek-llm-7"}, "did you mean"),
        ({"allowed_gpus": ["H1OO"]}, "did you mean"),
        ({"epochs": 3}, "unknown field"),
        ({"model": {"params_b": 7, "layers": 32}}, "required"),
        ({"mfu": 1.5}, "less than or equal to 1"),
    ],
)
def test_invalid_workloads_are_rejected(bad, needle):
    with pytest.raises(ValidationError) as exc:
        project([workload(**bad)])
    from procure.models.validation import problems_from

    text = " ".join(p.message for p in problems_from(exc.value, "w.yaml"))
    assert needle in text


def test_unknown_mode_and_duplicate_names():
    with pytest.raises(ValidationError):
        project([workload()], allowed_modes=["lease"])
    with pytest.raises(ValidationError, match="unique"):
        project([workload(), workload()])


def test_deadline_beyond_horizon_is_an_error():
    with pytest.raises(ValidationError, match="beyond the horizon"):
        project([workload(deadline_days=400)], horizon_months=12)


def test_load_project_reports_every_problem_with_lines(tmp_path):
    path = write(
        tmp_path,
        """\
        name: demo
        horizon_months: 12
        workloads:
          - name: a
            model: llama-2-7b
            method: sft
            tokens_b: 1
            deadline_days: 30
          - name: b
            model: lama-2-7b
            method: full
            tokens_b: 1
            deadline_days: 30
            epochs: 2
        """,
    )
    with pytest.raises(InputError) as exc:
        load_project(path)
    probs = exc.value.problems
    by_field = {p.field: p for p in probs}
    assert by_field["workloads[0].method"].line == 6
    assert "did you mean 'llama-2-7b'" in by_field["workloads[1].model"].message
    assert by_field["workloads[1].model"].line == 10
    assert by_field["workloads[1].epochs"].line == 14
    assert len(probs) == 3


def test_malformed_yaml_names_the_line(tmp_path):
    path = write(tmp_path, "name: x\nworkloads: [\n  - {name: a\n")
    with pytest.raises(InputError) as exc:
        load_project(path)
    assert "malformed YAML" in str(exc.value) and exc.value.problems[0].line is not None


def test_implausible_dataset_is_a_warning(tmp_path):
    path = write(
        tmp_path,
        """\
        name: demo
        workloads:
          - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30, dataset_tb: 50000}
        """,
    )
    _, warnings = load_project(path)
    assert warnings and "implausibly large" in warnings[0].message and warnings[0].line == 3
