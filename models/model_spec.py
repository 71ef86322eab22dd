"""Transformer architectures: the numbers sizing needs, and the bundled presets.

``ffn_hidden_size`` is the FFN width one token activates: the dense ``intermediate_size``, or for a
mixture-of-experts model (n_shared + top_k) · moe_intermediate_size. Presets carry their config source.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import InputError, Problem, unknown_choice
from .limits import MAX_PARAMS_B
from .text import clean_name
from .validation import InputModel, problems_from
from .yamlio import line_of, load_yaml


class ModelSpec(InputModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, max_length=200, description="preset id, when the model came from a preset")
    params_b: float = Field(gt=0, le=MAX_PARAMS_B, description="total parameters, billions")
    active_params_b: float | None = Field(default=None, gt=0, description="parameters active per token, billions (mixture-of-experts); default: params_b")
    layers: int = Field(gt=0, le=100_000)
    hidden_size: int = Field(gt=0, le=10_000_000)
    heads: int = Field(gt=0, le=1_000_000)
    kv_heads: int | None = Field(default=None, gt=0, description="key/value heads (grouped-query attention); default: heads")
    ffn_hidden_size: int = Field(gt=0, le=100_000_000, description="FFN width one token activates")
    vocab_size: int = Field(gt=0, le=100_000_000)
    # mixture-of-experts layout (contract names; config.json keys in brackets, DeepSeek naming)
    experts: int | None = Field(default=None, gt=0, le=100_000, description="routed experts per MoE layer [n_routed_experts]")
    experts_per_token: int | None = Field(default=None, gt=0, le=100_000, description="routed experts each token activates [num_experts_per_tok]")
    shared_experts: int | None = Field(default=None, ge=0, le=100_000, description="always-active shared experts per MoE layer [n_shared_experts]")
    expert_ffn_hidden_size: int | None = Field(default=None, gt=0, le=100_000_000, description="FFN width of one expert [moe_intermediate_size]")
    dense_layers: int | None = Field(default=None, ge=0, le=100_000, description="leading dense (non-MoE) layers [first_k_dense_replace]")
    dense_ffn_hidden_size: int | None = Field(default=None, gt=0, le=100_000_000, description="FFN width of the dense layers [intermediate_size]")
    routing_group_limit: int | None = Field(default=None, gt=0, le=100_000, description="a token's routed experts lie in at most this many expert groups (nodes for DeepSeek-V3, devices for V2) [topk_group]")
    source: str | None = Field(default=None, max_length=2000)

    @field_validator("id", "source", mode="before")
    @classmethod
    def _clean(cls, value: object, info) -> object:
        # shown in every report: plain printable text (see models.text)
        return clean_name(value, info.field_name)

    @model_validator(mode="after")
    def _check(self) -> ModelSpec:
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError(f"active_params_b ({self.active_params_b}) cannot exceed params_b ({self.params_b})")
        if self.kv_heads is not None and self.kv_heads > self.heads:
            raise ValueError(f"kv_heads ({self.kv_heads}) cannot exceed heads ({self.heads})")
        moe = {k: getattr(self, k) for k in ("experts", "experts_per_token", "expert_ffn_hidden_size")}
        if any(v is not None for v in moe.values()) and any(v is None for v in moe.values()):
            missing = ", ".join(k for k, v in moe.items() if v is None)
            raise ValueError(f"a mixture-of-experts layout needs experts, experts_per_token and expert_ffn_hidden_size together; missing {missing}")
        if self.experts is not None and self.experts_per_token is not None and self.experts_per_token > self.experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) cannot exceed experts ({self.experts})")
        if self.dense_layers is not None and self.dense_layers >= self.layers:
            raise ValueError(f"dense_layers ({self.dense_layers}) must be fewer than layers ({self.layers})")
        return self

    @property
    def params(self) -> float:
        return self.params_b * 1e9

    @property
    def active_params(self) -> float:
        return (self.active_params_b or self.params_b) * 1e9

    @property
    def is_moe(self) -> bool:
        return self.active_params_b is not None and self.active_params_b < self.params_b

    @property
    def has_expert_layout(self) -> bool:
        """True when the MoE fields are given, so experts can be placed (expert parallelism)."""
        return self.experts is not None

    @property
    def moe_layers(self) -> int:
        return self.layers - (self.dense_layers or 0) if self.has_expert_layout else 0

    @property
    def expert_params(self) -> float:
        """Routed-expert parameters of the whole model: moe_layers × experts × 3·h·f_e (gated MLP: gate,
        up, down). Everything else (attention, shared experts, dense layers, embeddings) is P − this."""
        if self.experts is None or self.expert_ffn_hidden_size is None:
            return 0.0
        return float(self.moe_layers * self.experts * 3 * self.hidden_size * self.expert_ffn_hidden_size)

    @property
    def label(self) -> str:
        return self.id or f"custom {self.params_b:g}B"


@lru_cache(maxsize=1)
def model_presets() -> dict[str, ModelSpec]:
    """The bundled presets (``models/data/model_presets.yaml``) by id."""
    path = Path(str(resources.files("procure.models") / "data" / "model_presets.yaml"))
    data, lines = load_yaml(path, "model presets")
    out: dict[str, ModelSpec] = {}
    problems: list[Problem] = []
    for i, row in enumerate(data.get("presets", [])):
        try:
            spec = ModelSpec.model_validate(row)
            out[spec.id or f"presets[{i}]"] = spec
        except ValidationError as exc:
            problems += problems_from(exc, str(path), ("presets", i), lambda loc: line_of(lines, loc))
    if problems:
        raise InputError(problems)
    return out


def resolve_preset(name: str) -> ModelSpec:
    presets = model_presets()
    key = name.strip().lower()
    for pid, spec in presets.items():
        if pid.lower() == key:
            return spec
    raise ValueError(unknown_choice("model preset", name, presets))
